#pragma once
// How many cores the host-side parallel loops and helper threads may use.
// The hardware's by default; a program that was told to use fewer (the
// CLI's --threads) says so once with limit_cores, so that `-t 2` on a shared
// 64-core node stays about two cores' worth of threads everywhere: the
// database load, the index build, the decoders, not only the workers. Results
// never depend on it (every split gives the same bytes); only speed does.
#include <algorithm>
#include <atomic>
#include <thread>

#include "metawarp/config.hpp"

namespace metawarp::host {

namespace detail {
inline std::atomic<unsigned>& core_limit() {
  static std::atomic<unsigned> limit{0};  // 0: no limit
  return limit;
}
}  // namespace detail

// At most `cores` from now on (0 lifts the limit). Process-wide.
inline void limit_cores(unsigned cores) { detail::core_limit().store(cores); }

// The hardware's cores, or fewer where limit_cores said so; at least 1.
inline unsigned usable_cores() {
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  const unsigned limit = detail::core_limit().load();
  return limit == 0 ? hardware : std::clamp(limit, 1u, hardware);
}

}  // namespace metawarp::host
