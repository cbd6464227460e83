#pragma once
// Device-side lookups in a DeviceIndex (device_index.hpp).
#include <cstdint>

#include "kernels/device_index.hpp"
#include "metawarp/hash/fmix.hpp"

namespace metawarp::kernels {

inline constexpr std::uint64_t empty_lookup_slot = ~std::uint64_t(0);

// Where a feature's probing starts: Murmur3's finalizer, since the features
// are hashes already but sorted input must not cluster in the table whatever
// hash the database used.
__host__ __device__ inline std::uint32_t lookup_hash(std::uint32_t f) { return hash::fmix32(f); }

// The feature's locations are locations[*begin, *begin + *count); false
// (count 0) when the database does not hold it.
__device__ inline bool find(const DeviceIndexView& index, sketch::feature_t feature,
                            std::uint64_t& begin, std::uint32_t& count) {
  std::uint64_t slot = lookup_hash(feature) & index.slot_mask;
  for (;;) {
    const std::uint64_t entry = index.slots[slot];
    if (entry == empty_lookup_slot) break;
    if (std::uint32_t(entry >> 32) == feature) {
      const std::uint64_t list = entry & 0xffffffffu;
      begin = index.offsets[list];
      count = std::uint32_t(index.offsets[list + 1] - begin);
      return true;
    }
    slot = (slot + 1) & index.slot_mask;
  }
  begin = 0;
  count = 0;
  return false;
}

}  // namespace metawarp::kernels
