#pragma once
// A database's feature index on the GPU, for the query: an open-addressing
// table feature -> list number (built on the GPU from the sorted features),
// the list offsets and the locations. Host-side interface: the caller
// (src/pipeline/gpu/) uploads the arrays into the buffers, then builds the
// lookup.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/sketch/types.hpp"

namespace metawarp::kernels {

// Non-owning view, copied into kernels; device_index.cuh looks features up in it.
struct DeviceIndexView {
  const std::uint64_t* slots;  // (feature << 32 | list number); all ones: empty
  std::uint64_t slot_mask;     // slots - 1 (a power of two)
  const std::uint64_t* offsets;  // feature_count + 1
  const sketch::Location* locations;
};

class DeviceIndex {
 public:
  // Allocates the arrays for `features` features (`slots` lookup slots, a
  // power of two above the feature count) and `locations` locations.
  DeviceIndex(std::uint64_t features, std::uint64_t slots, std::uint64_t locations);

  // Where the caller uploads the sorted features (kept until build_lookup),
  // the offsets (features + 1) and the locations.
  sketch::feature_t* features() { return features_.data(); }
  std::uint64_t* offsets() { return offsets_.data(); }
  sketch::Location* locations() { return locations_.data(); }

  // Builds the lookup from the uploaded features, then frees them; returns
  // once done.
  void build_lookup(cudaStream_t stream);

  DeviceIndexView view() const {
    return DeviceIndexView{slots_.data(), slots_.size() - 1, offsets_.data(), locations_.data()};
  }
  // Device bytes held for queries (the features are gone after build_lookup).
  std::uint64_t bytes() const {
    return slots_.size_bytes() + offsets_.size_bytes() + locations_.size_bytes();
  }

 private:
  cuda::device_buffer<sketch::feature_t> features_;
  cuda::device_buffer<std::uint64_t> slots_;
  cuda::device_buffer<std::uint64_t> offsets_;
  cuda::device_buffer<sketch::Location> locations_;
};

}  // namespace metawarp::kernels
