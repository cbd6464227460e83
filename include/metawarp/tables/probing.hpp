#pragma once
// Probing schemes over a table of `num_windows` windows of `window_size`
// consecutive slots. A probing group loads one whole window per step
// (coalesced), so the schemes only decide the order of windows:
//  - DoubleHashing: window w_i = (a + i*b) mod p with p = num_windows prime and
//    1 <= b < p, so the first p steps visit every window exactly once (no
//    cycles shorter than the table, unlike double hashing mod a power of two).
//  - LinearProbing: w_i = (a + i) mod num_windows; good locality, but clusters
//    grow fast at high load.
// Both are plain value types usable on host (tests) and device.
#include <cstdint>

#include "metawarp/config.hpp"

namespace metawarp::tables {

// Deterministic primality test for 32-bit numbers (trial division; runs once
// per table construction on the host).
constexpr bool is_prime(std::uint64_t n) {
  if (n < 2) return false;
  if (n % 2 == 0) return n == 2;
  for (std::uint64_t d = 3; d * d <= n; d += 2) {
    if (n % d == 0) return false;
  }
  return true;
}

// Smallest prime >= n (n < 2^32 - 5).
constexpr std::uint64_t next_prime(std::uint64_t n) {
  if (n <= 2) return 2;
  if (n % 2 == 0) ++n;
  while (!is_prime(n)) n += 2;
  return n;
}

// Number of windows for a requested slot capacity: a prime >= 3 so that
// double hashing has a step range [1, p-1] of at least 2 values.
constexpr std::uint64_t windows_for_capacity(std::uint64_t min_slots, std::uint32_t window_size) {
  const std::uint64_t windows = (min_slots + window_size - 1) / window_size;
  return next_prime(windows < 3 ? 3 : windows);
}

class DoubleHashing {
 public:
  static constexpr const char* name = "double_hashing";
  METAWARP_HD DoubleHashing(std::uint64_t hash, std::uint32_t num_windows)
      : num_windows_(num_windows),
        window_(std::uint32_t(hash) % num_windows),
        step_(1 + std::uint32_t(hash >> 32) % (num_windows - 1)) {}

  METAWARP_HD_INLINE std::uint32_t window() const { return window_; }
  METAWARP_HD_INLINE void advance() {
    // window_ + step_ < 2 * num_windows < 2^33: compare before adding to stay in 32 bits.
    window_ = (window_ >= num_windows_ - step_) ? window_ - (num_windows_ - step_) : window_ + step_;
  }

 private:
  std::uint32_t num_windows_;
  std::uint32_t window_;
  std::uint32_t step_;
};

class LinearProbing {
 public:
  static constexpr const char* name = "linear_probing";
  METAWARP_HD LinearProbing(std::uint64_t hash, std::uint32_t num_windows)
      : num_windows_(num_windows), window_(std::uint32_t(hash) % num_windows) {}

  METAWARP_HD_INLINE std::uint32_t window() const { return window_; }
  METAWARP_HD_INLINE void advance() { window_ = (window_ + 1 == num_windows_) ? 0 : window_ + 1; }

 private:
  std::uint32_t num_windows_;
  std::uint32_t window_;
};

}  // namespace metawarp::tables
