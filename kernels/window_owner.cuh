#pragma once
// Which sequence of a batch a window belongs to. Build batches (BatchSegment)
// and query chunks (QuerySequence) both number their windows consecutively
// and give each sequence the count of windows before it (`window_prefix`).
#include <cstdint>

namespace metawarp::kernels {

// Index of the last of `count` items (window_prefix ascending, the first 0)
// whose window_prefix is <= window: binary search.
template <class Item>
__device__ inline std::uint32_t owner_of_window(const Item* items, std::uint32_t count,
                                                std::uint64_t window) {
  std::uint32_t lo = 0, hi = count;
  while (hi - lo > 1) {
    const std::uint32_t mid = (lo + hi) / 2;
    if (items[mid].window_prefix <= window) lo = mid; else hi = mid;
  }
  return lo;
}

}  // namespace metawarp::kernels
