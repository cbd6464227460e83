// Temporaries left by a killed process are removed by the next write to the
// same target; those of running processes, and anything else, are kept.
#include <sys/wait.h>
#include <unistd.h>

#include "catch.hpp"
#include "output/atomic_file.hpp"
#include "output/stale_temporaries.hpp"
#include "output_test_support.hpp"

using namespace metawarp;
using namespace metawarp::test;

namespace {

// A pid that belonged to a process that has exited and been reaped.
pid_t dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return child;
}

}  // namespace

TEST_CASE("stale temporaries: those of gone processes are removed, the others kept") {
  ScratchDir dir("stale");
  const std::string target = dir / "out.tsv";
  const pid_t gone = dead_pid();
  const std::string stale = output::temporary_path(target, gone).string();
  const std::string running = output::temporary_path(target, ::getppid()).string();
  const std::string other_target = output::temporary_path(dir / "other.tsv", gone).string();
  const std::string not_a_pid = target + ".tmp-notapid";
  const std::string group_zero = target + ".tmp-0";  // kill(0) would ask the whole group
  for (const std::string* path : {&stale, &running, &other_target, &not_a_pid, &group_zero})
    write_text(*path, "partial");

  {
    output::AtomicFile file(target, output::OnFailure::remove_existing);
    CHECK_FALSE(std::filesystem::exists(stale));
    file.write("done");
    file.commit();
  }
  CHECK(read_text(target) == "done");
  CHECK(std::filesystem::exists(running));
  CHECK(std::filesystem::exists(other_target));
  CHECK(std::filesystem::exists(not_a_pid));
  CHECK(std::filesystem::exists(group_zero));
}

TEST_CASE("stale temporaries: one with this process's pid, left by an earlier process, goes") {
  // Containers often give a program the same small pid each run: a
  // temporary left by a killed run must not block every later one.
  ScratchDir dir("own_pid");
  const std::string target = dir / "db.mwdb";
  write_text(output::temporary_path(target, ::getpid()).string(), "left by a killed run");
  {
    output::AtomicFile file(target, output::OnFailure::keep_existing, "database");
    file.write("complete");
    file.commit();
  }
  CHECK(read_text(target) == "complete");
  CHECK(temporaries_in(dir.path()).empty());
}

TEST_CASE("stale temporaries: this process writing one target twice at once is refused") {
  ScratchDir dir("twice");
  const std::string target = dir / "out.tsv";
  output::AtomicFile first(target, output::OnFailure::remove_existing);
  first.write("first");
  const std::string message =
      error_of([&] { output::AtomicFile(target, output::OnFailure::remove_existing); });
  CHECK(contains(message, "cannot create the temporary file"));
  first.commit();
  CHECK(read_text(target) == "first");
}

TEST_CASE("stale temporaries: the spill files of a killed partitioned write go too") {
  // A partitioned build writes `<database>.<array>.tmp-<pid>` beside the
  // database's own temporary; SIGKILL leaves all of them.
  ScratchDir dir("parts");
  const std::string target = dir / "x.mwdb";
  const pid_t gone = dead_pid();
  std::vector<std::string> stale, kept;
  for (const char* part : {"", ".features", ".offsets", ".locations"})
    stale.push_back(output::temporary_path(target + part, gone).string());
  // Kept: a running process's, another target's, a name not of our forms.
  kept.push_back(output::temporary_path(target + ".features", ::getppid()).string());
  kept.push_back(output::temporary_path(dir / "y.mwdb.features", gone).string());
  kept.push_back(output::temporary_path(target + ".two.parts", gone).string());
  for (const auto* paths : {&stale, &kept})
    for (const std::string& path : *paths) write_text(path, "partial");
  {
    output::AtomicFile file(target, output::OnFailure::keep_existing, "database");
    file.write("complete");
    file.commit();
  }
  for (const std::string& path : stale) CHECK_FALSE(std::filesystem::exists(path));
  for (const std::string& path : kept) CHECK(std::filesystem::exists(path));
}

TEST_CASE("stale temporaries: another user's are kept, even by root") {
  if (!running_as_root("no file here can belong to another user; nothing to check")) return;
  ScratchDir dir("other_owner");
  const std::string target = dir / "out.tsv";
  const std::string theirs = output::temporary_path(target, dead_pid()).string();
  write_text(theirs, "another user's");
  REQUIRE(::chown(theirs.c_str(), 65534, 65534) == 0);
  REQUIRE(error_writing(target, "done") == "");
  CHECK(read_text(theirs) == "another user's");
}
