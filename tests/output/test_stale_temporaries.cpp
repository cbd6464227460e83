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
