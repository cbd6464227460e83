#pragma once
// Device-side lookups in a DeviceIndexView (device_index.hpp).
#include <cstdint>

#include "kernels/device_index.hpp"
#include "metawarp/hash/fmix.hpp"

namespace metawarp::kernels {

inline constexpr std::uint64_t empty_lookup_slot = ~std::uint64_t(0);

// Where a feature's probing starts: Murmur3's finalizer (the features are
// hashes already, but sorted input must not cluster in the table whatever
// hash the database used), reduced to [0, capacity) by a multiply-high.
__host__ __device__ inline std::uint64_t lookup_start(std::uint32_t f, std::uint64_t capacity) {
  return (std::uint64_t(hash::fmix32(f)) * capacity) >> 32;
}

// The shard whose feature range holds `feature`: the last one beginning at or
// below it (shard_begins ascending, the first 0; an empty range begins where
// the next does, so it is never chosen).
__device__ inline std::uint32_t owner_shard(const DeviceIndexView& index,
                                            sketch::feature_t feature) {
  std::uint32_t lo = 0, hi = index.shard_count;
  while (hi - lo > 1) {
    const std::uint32_t mid = (lo + hi) / 2;
    if (index.shard_begins[mid] <= feature) lo = mid; else hi = mid;
  }
  return lo;
}

// The feature's list (count 0 when the database does not hold it).
__device__ inline ListRange find(const DeviceIndexView& index, sketch::feature_t feature) {
  const std::uint32_t owner = owner_shard(index, feature);
  const ShardView shard = index.shards[owner];
  std::uint64_t slot = lookup_start(feature, shard.capacity);
  for (;;) {
    const std::uint64_t entry = shard.slots[slot];
    if (entry == empty_lookup_slot) break;
    if (std::uint32_t(entry >> 32) == feature) {
      const std::uint32_t list = std::uint32_t(entry);
      const std::uint32_t begin = shard.offsets[list];
      return ListRange{owner, begin, shard.offsets[list + 1] - begin};
    }
    if (++slot == shard.capacity) slot = 0;
  }
  return ListRange{owner, 0, 0};
}

// The target of a global window id: the last target whose base is at or
// below it (targets without windows share the next one's base and are never
// chosen).
__device__ inline std::uint32_t target_of(const DeviceIndexView& index, std::uint32_t id) {
  std::uint32_t lo = 0, hi = index.targets;
  while (hi - lo > 1) {
    const std::uint32_t mid = (lo + hi) / 2;
    if (index.window_base[mid] <= id) lo = mid; else hi = mid;
  }
  return lo;
}

}  // namespace metawarp::kernels
