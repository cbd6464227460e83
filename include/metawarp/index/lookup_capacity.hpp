#pragma once
// How many slots the GPU query's feature lookup has for `features` features:
// at most 80 % full, rounded up to whole buckets of lookup_bucket_size slots
// (at least one), the bucketed cuckoo table's own shape
// (tables/bucketed_storage.cuh), so that the count here is exactly the
// table's capacity. The device index allocates this
// (kernels/device_index.cu: FeatureLookupTable, which checks it) and `info` /
// the shard planner count it, so it is written once, here.
#include <cstdint>

#include "metawarp/config.hpp"

namespace metawarp::index {

// Slots per bucket of the feature lookup (and threads reading one bucket
// together): a bucket of eight 8-byte slots is two 32-byte sectors, read by
// one coalesced load; a lookup reads one bucket, rarely two or three.
inline constexpr int lookup_bucket_size = 8;

// Slots per feature before the table's rounding: at most 80 % full.
constexpr std::uint64_t lookup_min_slots(std::uint64_t features) {
  return (features * 5 + 3) / 4;
}

constexpr std::uint64_t lookup_buckets(std::uint64_t features) {
  const std::uint64_t buckets = (lookup_min_slots(features) + lookup_bucket_size - 1) /
                                lookup_bucket_size;
  return buckets > 0 ? buckets : 1;
}

constexpr std::uint64_t lookup_capacity(std::uint64_t features) {
  return lookup_buckets(features) * lookup_bucket_size;
}

}  // namespace metawarp::index
