// Interrupts: a child process writing atomic outputs is ended by a signal;
// the handlers installed by install_signal_handlers() must leave no
// temporary and no stale query output, and the child must still die of that
// signal. An over-limit write (SIGXFSZ ignored) fails like any write error.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <functional>

#include "catch.hpp"
#include "output/atomic_file.hpp"
#include "output/remove_on_failure.hpp"
#include "output/signals.hpp"
#include "output_test_support.hpp"

using namespace metawarp;
using namespace metawarp::test;
using output::AtomicFile;
using output::OnFailure;

namespace {

// Runs `child` in a forked process (which never returns into the test
// runner) and returns its wait status. The child starts with the default
// signal actions, as a new process does (not the test runner's handlers),
// and exits 0 when `child` returns true, 1 when false, 2 on an exception.
int in_child(const std::function<bool()>& child) {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGXFSZ}) ::signal(sig, SIG_DFL);
    int code = 2;
    try {
      code = child() ? 0 : 1;
    } catch (...) {
    }
    ::_exit(code);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  return status;
}

bool killed_by(int status, int sig) { return WIFSIGNALED(status) && WTERMSIG(status) == sig; }

}  // namespace

TEST_CASE("signals: SIGINT, SIGTERM, SIGHUP and SIGPIPE remove temporaries and stale outputs") {
  for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) {
    CAPTURE(sig);
    ScratchDir dir("signal");
    write_text(dir / "db.mwdb", "working database");
    write_text(dir / "out.tsv", "old results");
    const int status = in_child([&] {
      output::install_signal_handlers();
      AtomicFile database(dir / "db.mwdb", OnFailure::keep_existing, "database");
      AtomicFile results(dir / "out.tsv", OnFailure::remove_existing);
      database.write("half");
      results.write("half");
      ::raise(sig);
      return false;  // not reached when the signal ends the process
    });
    CHECK(killed_by(status, sig));
    CHECK(temporaries_in(dir.path()).empty());
    CHECK(read_text(dir / "db.mwdb") == "working database");
    CHECK_FALSE(std::filesystem::exists(dir / "out.tsv"));
  }
}

TEST_CASE("signals: a signal ignored when the process started stays ignored") {
  ScratchDir dir("ignored");
  const int status = in_child([&] {
    ::signal(SIGHUP, SIG_IGN);  // as nohup leaves it
    output::install_signal_handlers();
    AtomicFile file(dir / "out.tsv", OnFailure::remove_existing);
    ::raise(SIGHUP);
    file.write("done");
    file.commit();
    return true;
  });
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(read_text(dir / "out.tsv") == "done");
}

TEST_CASE("signals: a write over the file size limit fails with EFBIG and cleans up") {
  ScratchDir dir("xfsz");
  write_text(dir / "db.mwdb", "working database");
  const int status = in_child([&] {
    output::install_signal_handlers();
    const rlimit limit{4096, 4096};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) return false;
    const std::string message = error_of([&] {
      AtomicFile file(dir / "db.mwdb", OnFailure::keep_existing, "database");
      file.write(std::string(1 << 20, 'x'));
      file.commit();
    });
    return contains(message, "cannot write database") && contains(message, std::strerror(EFBIG));
  });
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(temporaries_in(dir.path()).empty());
  CHECK(read_text(dir / "db.mwdb") == "working database");
}

TEST_CASE("signals: the cleanup registry refuses what it cannot hold") {
  CHECK_THROWS(output::RemoveOnFailure("/" + std::string(output::registry_path_bytes, 'x')));
  std::vector<output::RemoveOnFailure> held;
  ScratchDir dir("full");
  CHECK_THROWS([&] {
    for (int i = 0; i <= output::registry_slots; ++i)
      held.emplace_back(dir.path() / std::to_string(i));
  }());
  for (auto& entry : held) entry.keep();
}
