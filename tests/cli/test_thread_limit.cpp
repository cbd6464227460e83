// The thread and lane bounds shared by build and query.
#include <stdexcept>

#include "catch.hpp"
#include "cli/thread_limit.hpp"

using namespace metawarp::cli;

TEST_CASE("threads: at most 4 x the cores and 1024; 0 is an error") {
  CHECK(max_threads(1) == 4);
  CHECK(max_threads(2) == 8);
  CHECK(max_threads(300) == 1024);
  CHECK(max_threads(0) == 4);  // hardware_concurrency may not know

  const Bounded asked = bound_threads("query", 8, 2);
  CHECK(asked.value == 8);
  CHECK(asked.notice.empty());

  const Bounded clamped = bound_threads("build", 50000, 2);
  CHECK(clamped.value == 8);
  CHECK(clamped.notice == "build: --threads 50000 is more than 4 x the 2 cores (at most 1024); using 8");
  CHECK(bound_threads("query", 4000000000u, 512).value == 1024);

  CHECK_THROWS_AS(bound_threads("query", 0, 2), std::invalid_argument);
}

TEST_CASE("gpu lanes: at most the worker threads and 64, the notice only when asked for") {
  CHECK(bound_gpu_lanes(8, 16, true).value == 8);
  CHECK(bound_gpu_lanes(8, 16, true).notice.empty());

  const Bounded more_than_threads = bound_gpu_lanes(1000, 2, true);
  CHECK(more_than_threads.value == 2);
  CHECK(more_than_threads.notice ==
        "query: --gpu-lanes 1000 is more than the 2 worker threads can use; using 2");
  const Bounded more_than_64 = bound_gpu_lanes(1000, 1024, true);
  CHECK(more_than_64.value == 64);
  CHECK(more_than_64.notice == "query: --gpu-lanes 1000 is more than 64; using 64");

  // The default (8) with 2 threads: bounded silently.
  const Bounded default_lanes = bound_gpu_lanes(8, 2, false);
  CHECK(default_lanes.value == 2);
  CHECK(default_lanes.notice.empty());

  CHECK_THROWS_AS(bound_gpu_lanes(0, 2, true), std::invalid_argument);
}
