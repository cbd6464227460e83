#pragma once
// Data-parallel loops on the host, on ThreadGroup: a failure in any part is
// rethrown on the calling thread once every part has stopped.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <type_traits>

#include "metawarp/host/cores.hpp"
#include "metawarp/host/thread_group.hpp"

namespace metawarp::host {

// How many parts of at least `min_part` elements [0, n) splits into, one per
// core at most.
inline std::size_t parts_for(std::size_t n, std::size_t min_part) {
  const std::size_t cores = usable_cores();
  return std::clamp<std::size_t>(n / std::max<std::size_t>(min_part, 1), 1, cores);
}

// Runs f(begin, end) on `parts` contiguous, about equal ranges of [0, n) at
// once, one thread each (the calling thread takes the first range).
template <class F>
void parallel_ranges(std::size_t n, std::size_t parts, F f) {
  parts = std::max<std::size_t>(parts, 1);
  ThreadGroup group;
  for (std::size_t p = 1; p < parts; ++p)
    group.spawn([&f, n, p, parts] { f(n * p / parts, n * (p + 1) / parts); });
  f(std::size_t(0), n / parts);
  group.join();
}

// Runs job(i) for every i in [0, count) on up to `threads` threads (the
// calling thread among them), handing out one index at a time: for jobs of
// very different sizes. A job taking (i, worker) also learns which thread
// runs it (0 .. threads-1), for per-thread scratch. After a failure no new
// index is handed out.
template <class Job>
void parallel_for(std::size_t count, unsigned threads, Job job) {
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stopped{false};
  auto worker = [&](unsigned w) {
    for (std::size_t i; !stopped.load(std::memory_order_relaxed) &&
                        (i = next.fetch_add(1, std::memory_order_relaxed)) < count;) {
      if constexpr (std::is_invocable_v<Job&, std::size_t, unsigned>)
        job(i, w);
      else
        job(i);
    }
  };
  ThreadGroup group;
  group.on_stop([&] { stopped = true; });
  const std::size_t helpers = std::min<std::size_t>(std::max(1u, threads), count) - (count ? 1 : 0);
  for (std::size_t t = 0; t < helpers; ++t) group.spawn([&worker, t] { worker(unsigned(t + 1)); });
  try {
    worker(0);
  } catch (...) {
    group.fail(std::current_exception());
  }
  group.join();
}

}  // namespace metawarp::host
