// OrderedPipeline: results in input order whatever the timing, a bounded
// number of items, and the first error of any step comes back without a hang.
#include <atomic>
#include <chrono>
#include <random>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "metawarp/host/ordered_pipeline.hpp"

using metawarp::host::OrderedPipeline;

namespace {

struct Item {
  int index = -1;
  int value = 0;
  std::vector<int> buffer;  // kept between uses
};

void jitter(int seed) {
  std::this_thread::sleep_for(std::chrono::microseconds((seed * 7919) % 300));
}

}  // namespace

TEST_CASE("OrderedPipeline: serial steps and the sink see input order") {
  for (unsigned workers : {1u, 3u, 8u}) {
    OrderedPipeline<Item> pipeline(5);
    int next = 0;
    const int count = 300;
    std::vector<int> serial_seen;
    std::set<const Item*> items_used;
    pipeline.source([&](Item& item) {
      if (next == count) return false;
      item.index = next++;
      items_used.insert(&item);
      return true;
    });
    pipeline.serial([&](Item& item) { serial_seen.push_back(item.index); });
    // Catch2's assertions are not thread-safe: the steps record, the test
    // thread checks.
    std::atomic<bool> bad_worker{false};
    pipeline.parallel(workers, [&](Item& item, unsigned worker) {
      if (worker >= workers) bad_worker = true;
      jitter(item.index);
      item.value = item.index * item.index;
    });
    std::vector<int> sunk;
    std::atomic<bool> wrong_value{false};
    pipeline.run([&](Item& item) {
      if (item.value != item.index * item.index) wrong_value = true;
      sunk.push_back(item.index);
    });
    CHECK_FALSE(bad_worker);
    CHECK_FALSE(wrong_value);
    REQUIRE(sunk.size() == std::size_t(count));
    for (int i = 0; i < count; ++i) CHECK(sunk[i] == i);
    CHECK(serial_seen == sunk);
    CHECK(items_used.size() <= 5);  // at most `slots` items, reused
    CHECK(pipeline.wait_seconds().size() == 4);
  }
}

TEST_CASE("OrderedPipeline: an error in any step stops everything and comes back") {
  for (int failing_step = 0; failing_step < 4; ++failing_step) {
    CAPTURE(failing_step);
    OrderedPipeline<Item> pipeline(4);
    int next = 0;
    auto fail_at = [&](int step, const Item& item) {
      if (step == failing_step && item.index == 77) throw std::runtime_error("step failed");
    };
    pipeline.source([&](Item& item) {
      item.index = next++;
      fail_at(0, item);
      return true;  // endless input: only the error ends it
    });
    pipeline.serial([&](Item& item) { fail_at(1, item); });
    pipeline.parallel(4, [&](Item& item, unsigned) { fail_at(2, item); });
    CHECK_THROWS_WITH(pipeline.run([&](Item& item) { fail_at(3, item); }), "step failed");
  }
}

TEST_CASE("OrderedPipeline: an empty input runs nothing through the sink") {
  OrderedPipeline<Item> pipeline(2);
  pipeline.source([](Item&) { return false; });
  pipeline.parallel(2, [](Item&, unsigned) { FAIL("no item expected"); });
  int sunk = 0;
  pipeline.run([&](Item&) { ++sunk; });
  CHECK(sunk == 0);
}
