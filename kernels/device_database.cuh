#pragma once
// A database's feature index on the GPU, for the query: an open-addressing
// table feature -> list number (built on the GPU from the sorted features),
// the list offsets and the locations, all uploaded once through pinned,
// double-buffered staging copies.
#include <cstdint>

#include "db/database.hpp"
#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/sketch/types.hpp"
#include "metawarp/tables/hashers.hpp"

namespace metawarp::kernels {

// A slot holds (feature << 32 | list number); all ones marks it empty (it
// would need 2^32 features to be a real entry).
inline constexpr std::uint64_t empty_lookup_slot = ~std::uint64_t(0);

// Murmur3's finalizer: the features are hashes already, but sorted input
// must not cluster in the table whatever hash the database used.
__host__ __device__ inline std::uint32_t lookup_hash(std::uint32_t f) { return tables::fmix32(f); }

// Non-owning device view; copy it into kernels.
struct DeviceIndexRef {
  const std::uint64_t* slots;
  std::uint64_t slot_mask;
  const std::uint64_t* offsets;  // feature_count + 1
  const sketch::Location* locations;

  // The feature's locations are locations[*begin, *begin + *count); false
  // (count 0) when the database does not hold it.
  __device__ bool find(sketch::feature_t feature, std::uint64_t& begin,
                       std::uint32_t& count) const {
    std::uint64_t slot = lookup_hash(feature) & slot_mask;
    for (;;) {
      const std::uint64_t entry = slots[slot];
      if (entry == empty_lookup_slot) break;
      if (std::uint32_t(entry >> 32) == feature) {
        const std::uint64_t list = entry & 0xffffffffu;
        begin = offsets[list];
        count = std::uint32_t(offsets[list + 1] - begin);
        return true;
      }
      slot = (slot + 1) & slot_mask;
    }
    begin = 0;
    count = 0;
    return false;
  }
};

class DeviceDatabase {
 public:
  // Uploads `index` and builds the lookup table; returns when done. Throws
  // std::runtime_error (with the bytes needed) when it does not fit.
  DeviceDatabase(const db::FeatureIndex& index, cudaStream_t stream);

  DeviceIndexRef ref() const {
    return DeviceIndexRef{slots_.data(), slots_.size() - 1, offsets_.data(), locations_.data()};
  }
  std::uint64_t bytes() const {
    return slots_.size_bytes() + offsets_.size_bytes() + locations_.size_bytes();
  }

 private:
  cuda::device_buffer<std::uint64_t> slots_;
  cuda::device_buffer<std::uint64_t> offsets_;
  cuda::device_buffer<sketch::Location> locations_;
};

}  // namespace metawarp::kernels
