#pragma once
// A database's feature index on the GPU, for the query, in shards: shard s
// holds the features of the s-th feature range (index::FeatureRange) with
// their location lists. Per shard: the library's hash table feature -> list
// number (FeatureLookupTable, device_index.cuh; built on the GPU from the
// shard's sorted features), 32-bit list offsets relative to the shard's first
// location, and the locations as 32-bit global window ids (window_base[target]
// + window; window_base is the prefix sum of the targets' window counts in
// target order, so the (target, window) order of the lists is the order of
// the ids). Host-side interface: the caller (src/pipeline/gpu/) converts and
// uploads the arrays into the buffers, then builds the lookup; a
// DeviceIndexTable on each GPU lists every shard, so a kernel finds a
// feature's shard and reads that shard's arrays (on its own GPU or, through
// peer access, on another).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/index/lookup_capacity.hpp"
#include "metawarp/sketch/types.hpp"
#include "metawarp/tables/hashers.hpp"

namespace metawarp::kernels {

// A list number no shard has: reserved_lists' "absent".
inline constexpr std::uint32_t no_list = 0xffffffffu;

// A shard's lookup table (FeatureLookupTable, device_index.cuh: bucketed
// cuckoo) as plain data this header's host compiler sees: its slots and its
// three bucket hash functions, as the table made them from its seed.
// device_index.cuh builds the table's device ref from it (the library offers
// no ref constructor from such a description; docs/library.md).
using LookupHasher = tables::MurmurHasher;  // the table's hash function family
struct LookupTableView {
  std::uint64_t* slots;        // buckets * index::lookup_bucket_size, read only here
  LookupHasher hashers[3];     // bucket k of a feature: hashers[k] reduced to `buckets`
  std::uint32_t buckets;
};

// One shard's arrays, as the kernels read them.
struct ShardView {
  LookupTableView lookup;        // feature -> list number (non-owning)
  // The lists of features 2^32 - 2 and 2^32 - 1, which the table reserves as
  // its empty / erased markers (tables/sentinels.hpp), or no_list.
  std::uint32_t reserved_lists[2];
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

struct FeatureLookup;  // the shard's table (device_index.cuh)

// What build_lookup does when the cuckoo table cannot place every feature (an
// eviction chain ran out, which the 80 % rule makes rare): it builds again
// from empty with the next seeds, first at the same size, then with `growth`
// times the slots per attempt; after all attempts it throws.
struct LookupBuildPolicy {
  int same_size_attempts = 3;
  int growing_attempts = 3;
  double growth = 1.25;
  // The table's bound on evictions per insert; unset: the table's own.
  // (Tests set 0 to make builds fail.)
  std::optional<std::uint32_t> max_evictions;
};

class DeviceShard {
 public:
  // Allocates a shard's arrays on the current device for `features` features
  // and `locations` locations (< 2^32 each).
  DeviceShard(std::uint64_t features, std::uint64_t locations);
  DeviceShard(DeviceShard&&) noexcept;
  DeviceShard& operator=(DeviceShard&&) noexcept;
  ~DeviceShard();

  // Where the caller uploads the sorted features (kept until build_lookup),
  // the relative offsets (features + 1) and the global window ids.
  sketch::feature_t* features() { return features_.data(); }
  std::uint32_t* offsets() { return offsets_.data(); }
  std::uint32_t* locations() { return locations_.data(); }
  std::uint64_t feature_count() const { return offsets_.size() - 1; }
  std::uint64_t location_count() const { return locations_.size(); }

  // Builds the lookup from the uploaded features (the library's bucketed
  // cuckoo table, index::lookup_capacity slots unless a failed build made it
  // grow), then frees them; returns once done. The shard's device must be
  // selected. Throws std::runtime_error if the table reports an error or
  // cannot be built within the policy's attempts.
  void build_lookup(cudaStream_t stream, const LookupBuildPolicy& policy = {});

  // After build_lookup.
  ShardView view() const;
  // Slots of the lookup table: index::lookup_capacity(feature_count()), more
  // only after a build that had to grow.
  std::uint64_t lookup_capacity() const {
    return lookup_slots_ != 0 ? lookup_slots_ : index::lookup_capacity(feature_count());
  }
  // Builds of the table build_lookup ran (1 unless one failed).
  int lookup_attempts() const { return lookup_attempts_; }
  // Every (feature << 32 | list number) the lookup holds, ascending (tests;
  // synchronises `stream`).
  std::vector<std::uint64_t> lookup_entries(cudaStream_t stream) const;
  // Device bytes held for queries (the features are gone after build_lookup).
  std::uint64_t bytes() const {
    return lookup_capacity() * sizeof(std::uint64_t) + offsets_.size_bytes() +
           locations_.size_bytes();
  }

 private:
  cuda::device_buffer<sketch::feature_t> features_;
  std::unique_ptr<FeatureLookup> lookup_;
  std::uint64_t lookup_slots_ = 0;
  int lookup_attempts_ = 0;
  std::uint32_t reserved_lists_[2] = {no_list, no_list};
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
