// ThreadGroup: errors come back to the caller, failures wake the waiting
// threads, and a thread the system refuses is an error, never a hang.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

#include "catch.hpp"
#include "metawarp/host/channel.hpp"
#include "metawarp/host/thread_group.hpp"

using metawarp::host::Channel;
using metawarp::host::ThreadGroup;

TEST_CASE("ThreadGroup rethrows the first task error on join") {
  ThreadGroup group;
  std::atomic<int> ran{0};
  for (int i = 0; i < 4; ++i) group.spawn([&] { ++ran; });
  group.spawn([] { throw std::runtime_error("task failed"); });
  CHECK_THROWS_WITH(group.join(), "task failed");
  CHECK(ran == 4);
}

TEST_CASE("ThreadGroup: a failing task cancels what the others wait on") {
  Channel<int> never_filled(1);
  ThreadGroup group;
  group.on_stop([&] { never_filled.cancel(); });
  std::atomic<bool> woke{false};
  std::atomic<bool> popped{false};
  group.spawn([&] {  // Catch2's assertions are not thread-safe: no CHECK here
    int x;
    popped = never_filled.pop(x);  // would wait forever without the cancel
    woke = true;
  });
  group.spawn([] { throw std::invalid_argument("bad"); });
  CHECK_THROWS_AS(group.join(), std::invalid_argument);
  CHECK(woke);
  CHECK_FALSE(popped);
}

TEST_CASE("ThreadGroup: stop callbacks run once, also when registered late") {
  ThreadGroup group;
  int calls = 0;
  group.on_stop([&] { ++calls; });
  group.stop();
  group.stop();
  CHECK(calls == 1);
  group.on_stop([&] { ++calls; });  // already stopped: runs at once
  CHECK(calls == 2);
  CHECK(group.stopped());
}

TEST_CASE("ThreadGroup destructor stops and joins when the caller leaves by an exception") {
  Channel<int> work(1);
  std::atomic<bool> finished{false};
  try {
    ThreadGroup group;
    group.on_stop([&] { work.cancel(); });
    group.spawn([&] {
      int x;
      while (work.pop(x)) {
      }
      finished = true;
    });
    throw std::runtime_error("the caller fails");
  } catch (const std::runtime_error&) {
  }
  CHECK(finished);
}

// The sanitizers reserve far more address space than the limit below leaves
// (ThreadSanitizer then dies in its own mmap): the case runs without them.
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__) && !defined(__has_feature)
#define METAWARP_TEST_ADDRESS_LIMIT 1
#elif defined(__has_feature)
#if !__has_feature(address_sanitizer) && !__has_feature(thread_sanitizer)
#define METAWARP_TEST_ADDRESS_LIMIT 1
#endif
#endif

#ifdef METAWARP_TEST_ADDRESS_LIMIT
TEST_CASE("ThreadGroup: a thread the system refuses is an error naming the count, no hang") {
  // In a child process whose address space cannot hold many thread stacks,
  // ask for far more threads than fit: the spawn must fail with a message and
  // the threads already started must be joined (the child exits, it does not
  // hang; the parent gives it 60 s).
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    alarm(60);
    rlimit limit{};
    getrlimit(RLIMIT_AS, &limit);
    limit.rlim_cur = rlim_t(1) << 30;  // 1 GiB: about a hundred 8 MiB stacks
    setrlimit(RLIMIT_AS, &limit);
    Channel<int> gate(1);
    int code = 3;
    try {
      ThreadGroup group;
      group.on_stop([&] { gate.cancel(); });
      for (int i = 0; i < 100000; ++i)
        group.spawn([&] {
          int x;
          gate.pop(x);
        });
      code = 2;  // every thread started: the limit did not bite
    } catch (const std::runtime_error& e) {
      code = std::string(e.what()).find("cannot start thread") == 0 ? 0 : 4;
    }
    _exit(code);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));  // not killed by the alarm: no hang
  CHECK(WEXITSTATUS(status) == 0);
}
#endif
