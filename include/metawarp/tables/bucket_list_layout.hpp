#pragma once
// Host- and device-side arithmetic of the bucket list table: the packed
// 64-bit list handle and the bucket growth schedule. Pure functions, tested
// on the CPU.
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "metawarp/config.hpp"

namespace metawarp::tables {

// A key's list handle, updated with one 64-bit CAS:
//   bits  0..35  pool offset of the tail (newest) bucket
//   bits 36..61  number of values in the list
//   bits 62..63  state
// The all-zero word is "uninitialised, empty" (what a fresh slot holds).
struct ListHandle {
  enum State : std::uint32_t { uninitialized = 0, blocked = 1, ready = 2 };
  static constexpr int offset_bits = 36;
  static constexpr int count_bits = 26;
  static constexpr std::uint64_t max_offset = (std::uint64_t(1) << offset_bits) - 1;
  static constexpr std::uint64_t max_count = (std::uint64_t(1) << count_bits) - 1;

  std::uint64_t word = 0;

  METAWARP_HD_INLINE static constexpr ListHandle make(std::uint64_t offset, std::uint64_t count,
                                                      State state) {
    return ListHandle{(offset & max_offset) | ((count & max_count) << offset_bits) |
                      (std::uint64_t(state) << (offset_bits + count_bits))};
  }
  METAWARP_HD_INLINE constexpr std::uint64_t offset() const { return word & max_offset; }
  METAWARP_HD_INLINE constexpr std::uint64_t count() const {
    return (word >> offset_bits) & max_count;
  }
  METAWARP_HD_INLINE constexpr State state() const {
    return State(word >> (offset_bits + count_bits));
  }
  METAWARP_HD_INLINE constexpr ListHandle with_state(State s) const {
    return make(offset(), count(), s);
  }
};

// Bucket sizes s_0, s_i = min(max, ceil(lambda * s_{i-1})). The schedule is
// tabulated until the size stops changing (at most max_stages entries; the
// last stage's size then repeats forever), so locating the bucket of the
// n-th value is a short loop plus one division.
struct BucketGrowth {
  static constexpr int max_stages = 32;
  std::uint32_t num_stages = 1;
  std::uint32_t stage_size[max_stages] = {};
  std::uint64_t stage_first_value[max_stages] = {};  // index of the first value in stage j

  BucketGrowth() = default;
  BucketGrowth(std::uint32_t first_size, double growth_factor, std::uint32_t max_bucket_size) {
    if (first_size == 0 || max_bucket_size < first_size || !(growth_factor >= 1.0)) {
      throw std::invalid_argument(
          "bucket growth needs 0 < first size (" + std::to_string(first_size) +
          ") <= max bucket size (" + std::to_string(max_bucket_size) + ") and factor >= 1 (" +
          std::to_string(growth_factor) + ")");
    }
    std::uint64_t size = first_size;
    std::uint64_t first = 0;
    num_stages = 0;
    while (true) {
      stage_size[num_stages] = std::uint32_t(size);
      stage_first_value[num_stages] = first;
      ++num_stages;
      first += size;
      std::uint64_t next = std::uint64_t(std::ceil(growth_factor * double(size)));
      if (next > max_bucket_size) next = max_bucket_size;
      if (next == size || num_stages == max_stages) break;
      size = next;
    }
  }

  struct Position {
    std::uint64_t bucket;    // 0-based bucket index in the list
    std::uint64_t slot;      // index inside the bucket
    std::uint32_t capacity;  // values the bucket holds
  };

  // Number of values bucket `bucket` holds.
  METAWARP_HD_INLINE std::uint32_t bucket_size(std::uint64_t bucket) const {
    return bucket < num_stages ? stage_size[bucket] : stage_size[num_stages - 1];
  }

  // Pool words a list of `values` values occupies: its buckets (the last one
  // possibly partly empty) plus one header word per bucket after the first.
  // Sizing a pool: sum of words_for(values of key) over the keys.
  METAWARP_HD_INLINE std::uint64_t words_for(std::uint64_t values) const {
    if (values == 0) return 0;
    const Position last = locate(values - 1);
    std::uint64_t words = last.bucket;  // headers
    const std::uint32_t tabulated = num_stages - 1;
    const std::uint64_t full_stages = last.bucket < tabulated ? last.bucket : tabulated;
    for (std::uint64_t j = 0; j < full_stages; ++j) words += stage_size[j];
    words += (last.bucket - full_stages) * std::uint64_t(stage_size[tabulated]);
    return words + last.capacity;
  }

  // Which bucket, and where in it, the value with 0-based index `n` lives.
  METAWARP_HD_INLINE Position locate(std::uint64_t n) const {
    const std::uint32_t last = num_stages - 1;
    for (std::uint32_t j = 0; j < last; ++j) {
      if (n < stage_first_value[j + 1]) return {j, n - stage_first_value[j], stage_size[j]};
    }
    const std::uint64_t beyond = n - stage_first_value[last];
    const std::uint32_t size = stage_size[last];
    return {last + beyond / size, beyond % size, size};
  }
};

}  // namespace metawarp::tables
