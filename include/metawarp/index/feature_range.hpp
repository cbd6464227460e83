#pragma once
// A contiguous range of feature values: the unit a database is split into
// (GPU shards, partitions beyond memory). Features are kept in ascending
// order, so the parts of a database cut at feature values are its arrays cut
// at positions, and the whole is their concatenation in range order: a
// database is the same, byte for byte, however it was split.
#include <cstdint>

#include "metawarp/config.hpp"

namespace metawarp::index {

// Every 32-bit feature value: [0, 2^32).
inline constexpr std::uint64_t feature_space_end = std::uint64_t(1) << 32;

struct FeatureRange {
  std::uint64_t begin = 0;                  // first feature value in the range
  std::uint64_t end = feature_space_end;    // one past the last

  METAWARP_HD_INLINE bool contains(std::uint32_t feature) const {
    return feature >= begin && feature < end;
  }
  METAWARP_HD_INLINE bool all() const { return begin == 0 && end == feature_space_end; }
  friend METAWARP_HD_INLINE bool operator==(FeatureRange a, FeatureRange b) {
    return a.begin == b.begin && a.end == b.end;
  }
};

}  // namespace metawarp::index
