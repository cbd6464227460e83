// The output path rule: new paths and single-link regular files are replaced,
// character devices, FIFOs and descriptors written directly (the database,
// written at offsets, takes only files), symbolic links are followed (the
// rule for whose: test_output_links.cpp), everything else is refused before
// anything is created.
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

#include "catch.hpp"
#include "output/atomic_file.hpp"
#include "output/output_path.hpp"
#include "output_test_support.hpp"

using namespace metawarp;
using namespace metawarp::test;

TEST_CASE("output path: the database refuses /dev/null before anything is created") {
  // Constructing (never committing) is safe even if the check were broken:
  // only commit() renames over the target, and the destructor removes the
  // temporary.
  const std::string message = error_of([] {
    output::AtomicFile("/dev/null", output::OnFailure::keep_existing, "database",
                       output::Writes::at_offsets);
  });
  CHECK(contains(message, "cannot write database '/dev/null'"));
  CHECK(contains(message, "character device"));
  CHECK(contains(message, "written in parts at their offsets"));
  CHECK(S_ISCHR(lstat_of("/dev/null").st_mode));
  CHECK(temporaries_in("/dev").empty());
  const output::OutputTarget null = output::resolve_output("/dev/null", "");
  CHECK(null.kind == output::TargetKind::device_or_fifo);
  CHECK_FALSE(null.renamed());
}

TEST_CASE("output path: what each stream is, and that the database takes none") {
  ScratchDir dir("streams");
  const std::string fifo = dir / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  CHECK(output::resolve_output(fifo, "").kind == output::TargetKind::device_or_fifo);
  // Opening a FIFO for writing would block until a reader comes: the
  // refusal must come before any open, and nothing may replace the FIFO.
  const std::string message = error_of([&] {
    output::AtomicFile(fifo, output::OnFailure::keep_existing, "database",
                       output::Writes::at_offsets);
  });
  CHECK(contains(message, "cannot write database '" + fifo + "'"));
  CHECK(contains(message, "FIFO"));
  CHECK(S_ISFIFO(lstat_of(fifo).st_mode));

  for (const auto& [path, fd] : {std::pair<std::string, int>{"/dev/stdout", 1},
                                 {"/dev/stderr", 2},
                                 {"/dev/fd/2", 2},
                                 {"/proc/self/fd/1", 1},
                                 {"/proc/thread-self/fd/2", 2}}) {
    const output::OutputTarget target = output::resolve_output(path, "");
    CHECK(target.kind == output::TargetKind::descriptor);
    CHECK(target.descriptor == fd);
    CHECK(contains(error_of([&] {
                     output::check_output_path(path, "database", output::Writes::at_offsets);
                   }),
                   "it names descriptor " + std::to_string(fd)));
  }
}

TEST_CASE("output path: block device, socket and directory are refused, naming what they are") {
  ScratchDir dir("kinds");
  const std::string block = dir / "block";  // never opened: only root may make one
  if (::mknod(block.c_str(), S_IFBLK | 0600, makedev(7, 0)) == 0)
    CHECK(contains(error_of([&] { output::resolve_output(block, ""); }), "block device"));

  const std::string socket_path = dir / "socket";
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, socket_path.c_str(), sizeof address.sun_path - 1);
  REQUIRE(::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0);
  CHECK(contains(error_of([&] { output::resolve_output(socket_path, ""); }), "socket"));
  ::close(fd);

  const std::string folder = dir / "folder";
  std::filesystem::create_directory(folder);
  CHECK(contains(error_of([&] { output::resolve_output(folder, ""); }), "directory"));
  CHECK(contains(error_of([&] { output::resolve_output(dir / "new/", ""); }), "ends with '/'"));
  write_text(dir / "file.tsv", "old");
  CHECK(contains(error_of([&] { output::resolve_output(dir / "file.tsv/", ""); }),
                 "ends with '/'"));
  CHECK(temporaries_in(dir.path()).empty());
}

TEST_CASE("output path: a file with several hard links is refused and both names stay") {
  ScratchDir dir("hardlink");
  const std::string file = dir / "file", other = dir / "other";
  write_text(file, "shared\n");
  REQUIRE(::link(file.c_str(), other.c_str()) == 0);
  const std::string message =
      error_of([&] { output::AtomicFile(file, output::OnFailure::remove_existing); });
  CHECK(contains(message, "2 hard links"));
  CHECK(read_text(file) == "shared\n");
  CHECK(lstat_of(file).st_ino == lstat_of(other).st_ino);
  CHECK(temporaries_in(dir.path()).empty());
}

TEST_CASE("output path: new paths and regular files are allowed, resolved to an absolute path") {
  ScratchDir dir("allowed");
  const output::OutputTarget fresh = output::resolve_output(dir / "new.tsv", "");
  CHECK(fresh.kind == output::TargetKind::new_file);
  CHECK(fresh.path == std::filesystem::canonical(dir.path()) / "new.tsv");
  write_text(dir / "old.tsv", "old\n");
  ::chmod((dir / "old.tsv").c_str(), 0640);
  const output::OutputTarget old = output::resolve_output(dir / "old.tsv", "");
  CHECK(old.kind == output::TargetKind::regular_file);
  CHECK(old.mode == 0640);
  CHECK(contains(error_of([&] { output::resolve_output(dir / "missing/x.tsv", ""); }),
                 "its folder"));
  CHECK(contains(error_of([] { output::resolve_output("", ""); }), "no file name"));
}

TEST_CASE("output path: symbolic links are followed; the link stays, its target is replaced") {
  ScratchDir dir("symlink");
  std::filesystem::create_directory(dir / "real");
  const std::string target = dir / "real/db.mwdb", link = dir / "link.mwdb";
  write_text(target, "old");
  std::filesystem::create_symlink("real/db.mwdb", link);  // relative, as users make them
  {
    output::AtomicFile file(link, output::OnFailure::keep_existing, "database");
    CHECK(file.temporary().parent_path() == std::filesystem::canonical(dir / "real"));
    file.write("new");
    file.commit();
  }
  CHECK(S_ISLNK(lstat_of(link).st_mode));
  CHECK(read_text(target) == "new");
  CHECK(temporaries_in(dir / "real").empty());

  // A chain of links, the last one dangling: the file is created at its end.
  std::filesystem::create_symlink(dir / "real/fresh.tsv", dir / "second");
  std::filesystem::create_symlink("second", dir / "first");
  {
    output::AtomicFile file(dir / "first", output::OnFailure::remove_existing);
    file.write("fresh");
    file.commit();
  }
  CHECK(read_text(dir / "real/fresh.tsv") == "fresh");
  CHECK(S_ISLNK(lstat_of(dir / "first").st_mode));

  // A link to a device leads to the device; where the device is refused,
  // the message says where the link leads.
  std::filesystem::create_symlink("/dev/null", dir / "null");
  CHECK(output::resolve_output(dir / "null", "").path == "/dev/null");
  const std::string message = error_of(
      [&] { output::resolve_output(dir / "null", "database", output::Writes::at_offsets); });
  CHECK(contains(message, "leads to '/dev/null'"));
  CHECK(contains(message, "character device"));

  std::filesystem::create_symlink("loop", dir / "loop");
  CHECK_THROWS(output::resolve_output(dir / "loop", ""));
}
