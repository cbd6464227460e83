// parallel_ranges / parallel_for: every index once, errors to the caller.
#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "metawarp/host/cores.hpp"
#include "metawarp/host/large_vector.hpp"
#include "metawarp/host/parallel_for.hpp"

namespace host = metawarp::host;

TEST_CASE("parallel_ranges covers [0, n) exactly once in contiguous ranges") {
  for (std::size_t n : {0u, 1u, 7u, 1000u}) {
    for (std::size_t parts : {1u, 3u, 8u}) {
      // Catch2's assertions are not thread-safe: the parts record, the
      // test thread checks.
      std::vector<std::atomic<int>> seen(n);
      std::atomic<bool> reversed{false};
      host::parallel_ranges(n, parts, [&](std::size_t b, std::size_t e) {
        if (b > e) reversed = true;
        for (std::size_t i = b; i < e; ++i) ++seen[i];
      });
      CHECK_FALSE(reversed);
      for (std::size_t i = 0; i < n; ++i) CHECK(seen[i] == 1);
    }
  }
}

TEST_CASE("parallel_for runs every index once and names workers in range") {
  const std::size_t n = 5000;
  std::vector<std::atomic<int>> seen(n);
  std::atomic<bool> bad_worker{false};
  host::parallel_for(n, 4, [&](std::size_t i, unsigned worker) {
    ++seen[i];
    if (worker >= 4) bad_worker = true;
  });
  for (std::size_t i = 0; i < n; ++i) REQUIRE(seen[i] == 1);
  CHECK_FALSE(bad_worker);
  std::atomic<int> calls{0};
  host::parallel_for(0, 4, [&](std::size_t) { ++calls; });
  CHECK(calls == 0);
}

TEST_CASE("parallel_for and parallel_ranges rethrow a part's error") {
  CHECK_THROWS_WITH(host::parallel_for(100, 3,
                                       [](std::size_t i) {
                                         if (i == 57) throw std::runtime_error("index 57");
                                       }),
                    "index 57");
  CHECK_THROWS_WITH(host::parallel_ranges(100, 4,
                                          [](std::size_t b, std::size_t) {
                                            if (b > 0) throw std::runtime_error("not the first");
                                          }),
                    "not the first");
}

TEST_CASE("make_large_vector gives a value-initialized vector of the size asked") {
  const auto v = host::make_large_vector<std::uint64_t>(1 << 20);
  REQUIRE(v.size() == std::size_t(1) << 20);
  std::uint64_t sum = 0;
  for (auto x : v) sum += x;
  CHECK(sum == 0);
  CHECK(host::make_large_vector<int>(0).empty());
}

TEST_CASE("limit_cores bounds the parts of every parallel loop; 0 lifts it") {
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t huge = std::size_t(1) << 40;
  CHECK(host::usable_cores() == hardware);
  CHECK(host::parts_for(huge, 1) == hardware);
  host::limit_cores(1);
  CHECK(host::usable_cores() == 1);
  CHECK(host::parts_for(huge, 1) == 1);
  host::limit_cores(hardware + 7);  // never more than the hardware has
  CHECK(host::usable_cores() == hardware);
  host::limit_cores(0);
  CHECK(host::parts_for(huge, 1) == hardware);
}
