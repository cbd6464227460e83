// Outputs that are not files to replace: a character device, a FIFO and the
// process's own descriptors (/dev/stdout, /dev/fd/N, /proc/self/fd/N) are
// written directly, with no temporary and no rename, and never removed.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "catch.hpp"
#include "output/atomic_file.hpp"
#include "output/file_descriptor.hpp"
#include "output/output_path.hpp"
#include "output_test_support.hpp"

using namespace metawarp;
using namespace metawarp::test;
using output::AtomicFile;
using output::FileDescriptor;
using output::OnFailure;

namespace {

// What can be read from `fd` now without blocking.
std::string drain(int fd) {
  std::string text;
  char buffer[4096];
  for (ssize_t got; (got = ::read(fd, buffer, sizeof buffer)) > 0;)
    text.append(buffer, std::size_t(got));
  return text;
}

std::string descriptor_path(const std::string& folder, int fd) {
  return folder + std::to_string(fd);
}

}  // namespace

TEST_CASE("direct outputs: a character device is written, never replaced or removed") {
  // As root a private node with /dev/null's numbers: a broken rule replaces
  // or removes that, not /dev/null. Without root /dev/null cannot be harmed.
  ScratchDir dir("device");
  std::string null = dir / "null";
  if (::mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) {
    if (::geteuid() == 0) {
      WARN("mknod failed as root: /dev/null would be at stake; nothing to check");
      return;
    }
    null = "/dev/null";
  }
  const ino_t inode = lstat_of(null).st_ino;
  {
    AtomicFile file(null, OnFailure::remove_existing);
    file.write("discarded\n");
    file.commit();
  }
  { AtomicFile failed(null, OnFailure::remove_existing); }  // destroyed uncommitted: a failure
  CHECK(S_ISCHR(lstat_of(null).st_mode));
  CHECK(lstat_of(null).st_ino == inode);
  CHECK(temporaries_in(dir.path()).empty());
}

TEST_CASE("direct outputs: a FIFO is written to its reader") {
  ScratchDir dir("fifo");
  const std::string fifo = dir / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  // The reader opens first (without blocking), so the writer's open returns.
  FileDescriptor reader(::open(fifo.c_str(), O_RDONLY | O_NONBLOCK));
  REQUIRE(reader.is_open());
  CHECK(error_writing(fifo, "through the FIFO\n") == "");
  CHECK(drain(reader.get()) == "through the FIFO\n");
  CHECK(S_ISFIFO(lstat_of(fifo).st_mode));
  CHECK(temporaries_in(dir.path()).empty());
}

TEST_CASE("direct outputs: /dev/fd/N and /proc/self/fd/N write through the descriptor") {
  ScratchDir dir("descriptor");
  const std::string log = dir / "app.log";
  write_text(log, "earlier\n");
  // An appended log (`3>>app.log`) stays appended: its earlier content stays.
  FileDescriptor appended(::open(log.c_str(), O_WRONLY | O_APPEND));
  REQUIRE(appended.is_open());
  for (const char* folder : {"/dev/fd/", "/proc/self/fd/"}) {
    AtomicFile file(descriptor_path(folder, appended.get()), OnFailure::remove_existing);
    file.write(std::string(folder) + "\n");
    file.commit();
  }
  CHECK(read_text(log) == "earlier\n/dev/fd/\n/proc/self/fd/\n");
  // A failure (no commit) removes nothing: what went through is not taken back.
  { AtomicFile failed(descriptor_path("/dev/fd/", appended.get()), OnFailure::remove_existing); }
  CHECK(read_text(log) == "earlier\n/dev/fd/\n/proc/self/fd/\n");
  CHECK(temporaries_in(dir.path()).empty());

  // A pipe (`| cat`): no path to create a temporary next to.
  int ends[2];
  REQUIRE(::pipe2(ends, O_NONBLOCK) == 0);
  FileDescriptor read_end(ends[0]), write_end(ends[1]);
  CHECK(error_writing(descriptor_path("/dev/fd/", write_end.get()), "through the pipe\n") == "");
  CHECK(drain(read_end.get()) == "through the pipe\n");
}

TEST_CASE("direct outputs: a closed or read-only descriptor is refused, naming it") {
  ScratchDir dir("descriptor_refused");
  const std::string input = dir / "input";
  write_text(input, "input\n");
  FileDescriptor read_only(::open(input.c_str(), O_RDONLY));
  REQUIRE(read_only.is_open());
  const std::string path = descriptor_path("/dev/fd/", read_only.get());
  const std::string message = error_writing(path, "output\n");
  CHECK(contains(message, "cannot write '" + path + "'"));
  CHECK(contains(message, "for reading only"));
  CHECK(read_text(input) == "input\n");

  const int closed = read_only.get() + 100;  // no test opens that many files
  CHECK(contains(error_writing(descriptor_path("/dev/fd/", closed), "output\n"),
                 "descriptor " + std::to_string(closed) + " is not open"));
}
