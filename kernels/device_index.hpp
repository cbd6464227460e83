#pragma once
// A database's feature index on the GPU, for the query, in shards: shard s
// holds the features of the s-th feature range (index::FeatureRange) with
// their location lists. Per shard: an open-addressing table feature -> list
// number (built on the GPU from the shard's sorted features), 32-bit list
// offsets relative to the shard's first location, and the locations as 32-bit
// global window ids (window_base[target] + window; window_base is the prefix
// sum of the targets' window counts in target order, so the (target, window)
// order of the lists is the order of the ids). Host-side interface: the caller
// (src/pipeline/gpu/) converts and uploads the arrays into the buffers, then
// builds the lookup; a DeviceIndexTable on each GPU lists every shard, so a
// kernel finds a feature's shard and reads that shard's arrays (on its own GPU
// or, through peer access, on another).
#include <cuda_runtime_api.h>

#include <cstdint>
#include <span>

#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/index/lookup_capacity.hpp"
#include "metawarp/sketch/types.hpp"

namespace metawarp::kernels {

// One shard's arrays, as the kernels read them.
struct ShardView {
  const std::uint64_t* slots;    // (feature << 32 | list number); all ones: empty
  std::uint64_t capacity;        // slots (any count > the shard's features)
  const std::uint32_t* offsets;  // shard features + 1, from 0
  const std::uint32_t* locations;  // global window ids
};

// Non-owning view of the whole index from one GPU, copied into kernels;
// device_index.cuh looks features up in it.
struct DeviceIndexView {
  const ShardView* shards;             // shard_count, in device memory
  const std::uint32_t* shard_begins;   // shard_count: each shard's first feature value (0 first)
  std::uint32_t shard_count;
  const std::uint32_t* window_base;    // targets + 1 (the last: all windows)
  std::uint32_t targets;
};

// A looked-up feature's location list: shards[shard].locations[begin, begin + count).
struct ListRange {
  std::uint32_t shard;
  std::uint32_t begin;
  std::uint32_t count;
};

class DeviceShard {
 public:
  // Allocates a shard's arrays on the current device for `features` features
  // and `locations` locations (< 2^32 each).
  DeviceShard(std::uint64_t features, std::uint64_t locations);

  // Where the caller uploads the sorted features (kept until build_lookup),
  // the relative offsets (features + 1) and the global window ids.
  sketch::feature_t* features() { return features_.data(); }
  std::uint32_t* offsets() { return offsets_.data(); }
  std::uint32_t* locations() { return locations_.data(); }
  std::uint64_t feature_count() const { return offsets_.size() - 1; }
  std::uint64_t location_count() const { return locations_.size(); }

  // Builds the lookup from the uploaded features, then frees them; returns
  // once done. The shard's device must be selected.
  void build_lookup(cudaStream_t stream);

  ShardView view() const {
    return ShardView{slots_.data(), slots_.size(), offsets_.data(), locations_.data()};
  }
  // Device bytes held for queries (the features are gone after build_lookup).
  std::uint64_t bytes() const {
    return slots_.size_bytes() + offsets_.size_bytes() + locations_.size_bytes();
  }

 private:
  cuda::device_buffer<sketch::feature_t> features_;
  cuda::device_buffer<std::uint64_t> slots_;
  cuda::device_buffer<std::uint32_t> offsets_;
  cuda::device_buffer<std::uint32_t> locations_;
};

// The list of shards and the window bases on one GPU (the current device when
// made); returns once uploaded.
class DeviceIndexTable {
 public:
  DeviceIndexTable(std::span<const ShardView> shards, std::span<const std::uint32_t> shard_begins,
                   std::span<const std::uint32_t> window_base, cudaStream_t stream);
  DeviceIndexView view() const {
    return DeviceIndexView{shards_.data(), shard_begins_.data(), std::uint32_t(shards_.size()),
                           window_base_.data(), std::uint32_t(window_base_.size() - 1)};
  }
  std::uint64_t bytes() const {
    return shards_.size_bytes() + shard_begins_.size_bytes() + window_base_.size_bytes();
  }

 private:
  cuda::device_buffer<ShardView> shards_;
  cuda::device_buffer<std::uint32_t> shard_begins_;
  cuda::device_buffer<std::uint32_t> window_base_;
};

}  // namespace metawarp::kernels
