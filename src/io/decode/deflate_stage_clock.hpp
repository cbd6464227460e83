#pragma once
// CPU time of the calling thread, for the per-stage costs of the pieces
// decoder (ChunkedGzipStats, tools/bench_inflate): on a shared machine wall
// time shows the share of the CPU a thread got, CPU time what the work cost.
#include <time.h>

#include <cstdint>

namespace metawarp::io {

inline std::uint64_t thread_cpu_ns() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<std::uint64_t>(now.tv_sec) * 1000000000u + static_cast<std::uint64_t>(now.tv_nsec);
}

}  // namespace metawarp::io
