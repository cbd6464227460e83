// Channel: bounded by weight, drained after close, emptied by cancel.
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "metawarp/host/channel.hpp"
#include "metawarp/host/thread_group.hpp"

using metawarp::host::Channel;
using metawarp::host::ThreadGroup;
using namespace std::chrono_literals;

TEST_CASE("Channel keeps order and drains after close") {
  Channel<int> c(8);
  for (int i = 0; i < 5; ++i) REQUIRE(c.push(i));
  c.close();
  CHECK_FALSE(c.push(99));  // closed: refused
  int x = -1;
  for (int i = 0; i < 5; ++i) {
    REQUIRE(c.pop(x));
    CHECK(x == i);
  }
  CHECK_FALSE(c.pop(x));
  CHECK_FALSE(c.cancelled());
}

TEST_CASE("Channel bounds its contents: a producer waits for room") {
  Channel<int> c(10);
  std::atomic<int> pushed{0};
  ThreadGroup group;
  group.spawn([&] {
    for (int i = 0; i < 4; ++i) {
      c.push(i, 4);  // weight 4: at most two fit in 10
      ++pushed;
    }
    c.close();
  });
  // Two fit; the third must still be waiting a while after they went in
  // (waiting for the two first keeps a slow machine from failing the test).
  for (int waited = 0; pushed < 2 && waited < 10000; waited += 10)
    std::this_thread::sleep_for(10ms);
  std::this_thread::sleep_for(100ms);
  CHECK(pushed == 2);  // the third waits for room
  int x;
  int popped = 0;
  while (c.pop(x)) ++popped;
  group.join();
  CHECK(popped == 4);
}

TEST_CASE("Channel try_push never waits: a full or closed channel drops the item") {
  Channel<int> c(2);
  CHECK(c.try_push(1));
  CHECK(c.try_push(2));
  CHECK_FALSE(c.try_push(3));  // full: dropped, not waited for
  int x = 0;
  REQUIRE(c.pop(x));
  CHECK(x == 1);
  CHECK(c.try_push(4));  // room again
  c.close();
  CHECK_FALSE(c.try_push(5));
  REQUIRE(c.pop(x));
  CHECK(x == 2);
  REQUIRE(c.pop(x));
  CHECK(x == 4);
  CHECK_FALSE(c.pop(x));
}

TEST_CASE("Channel lets an item heavier than the capacity through, alone") {
  Channel<std::string> c(4);
  REQUIRE(c.push("huge", 100));
  std::string s;
  REQUIRE(c.pop(s));
  CHECK(s == "huge");
}

TEST_CASE("Channel cancel wakes waiting producers and consumers at once") {
  Channel<int> full(1);
  Channel<int> empty(1);
  REQUIRE(full.push(1));
  std::atomic<int> woke{0};
  ThreadGroup group;
  group.spawn([&] {
    if (!full.push(2)) ++woke;
  });
  group.spawn([&] {
    int x;
    if (!empty.pop(x)) ++woke;
  });
  std::this_thread::sleep_for(50ms);
  full.cancel();
  empty.cancel();
  group.join();
  CHECK(woke == 2);
  CHECK(full.cancelled());
  int x;
  CHECK_FALSE(full.pop(x));  // cancelled: what was queued is dropped
}

TEST_CASE("Channel pop_for times out, then sees the end") {
  Channel<int> c(1);
  int x;
  CHECK(c.pop_for(x, 10ms) == Channel<int>::Got::timeout);
  c.push(7);
  CHECK(c.pop_for(x, 10ms) == Channel<int>::Got::item);
  CHECK(x == 7);
  c.close();
  CHECK(c.pop_for(x, 10ms) == Channel<int>::Got::end);
}
