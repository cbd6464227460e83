#pragma once
// Device-side lookups in a DeviceIndexView (device_index.hpp).
#include <cooperative_groups.h>

#include <cstdint>

#include "kernels/device_index.hpp"
#include "metawarp/tables/bucketed_cuckoo_table.cuh"

namespace metawarp::kernels {

namespace cg = cooperative_groups;

// The table behind every shard's feature -> list number lookup, chosen here
// once (docs/benchmarks.md, "The query's feature lookup"): bucketed cuckoo
// hashing, a feature and its list number packed in one 64-bit slot, buckets
// of index::lookup_bucket_size slots, each read by as many threads with one
// coalesced load. A feature lies in one of its three buckets and a lookup
// stops at the first bucket with a free slot, so it reads one bucket, at most
// three, whatever the table's size. The shards' features are distinct and the
// table is read-only once built.
using FeatureLookupTable =
    tables::BucketedCuckooTable<sketch::feature_t, std::uint32_t, index::lookup_bucket_size,
                                LookupHasher>;
using FeatureLookupRef = FeatureLookupTable::Ref;
// The threads that look one feature up together (all of them call find).
using LookupGroup = FeatureLookupTable::group_type;
inline constexpr int lookup_group_size = FeatureLookupTable::group_size;

struct FeatureLookup {
  FeatureLookupTable table;
};

// The plain description of a built table (host side) and the table's ref
// made from it (device side); a ref only finds (no inserts, no status word).
// Member by member, so the compiler checks that the two agree.
inline LookupTableView describe(const FeatureLookupTable& table) {
  const FeatureLookupRef ref = table.ref();
  return LookupTableView{ref.layout.words,
                         {ref.hashes.h0, ref.hashes.h1, ref.hashes.h2},
                         ref.hashes.num_buckets};
}
__device__ inline FeatureLookupRef lookup_ref(const LookupTableView& view) {
  FeatureLookupRef ref{};
  ref.layout.words = view.slots;
  ref.hashes.h0 = view.hashers[0];
  ref.hashes.h1 = view.hashers[1];
  ref.hashes.h2 = view.hashers[2];
  ref.hashes.num_buckets = view.buckets;
  return ref;
}

// The list number of `feature` in a shard, or no_list. Every thread of g
// calls it with the same feature.
__device__ inline std::uint32_t list_number(const LookupGroup& g, const ShardView& shard,
                                            sketch::feature_t feature) {
  using sentinels = tables::KeySentinels<sketch::feature_t>;
  if (!sentinels::is_valid(feature)) return shard.reserved_lists[feature - sentinels::tombstone];
  std::uint32_t list = no_list;
  return lookup_ref(shard.lookup).find(g, feature, list) ? list : no_list;
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

// The feature's list (count 0 when the database does not hold it). Every
// thread of g calls it with the same feature and gets the same answer.
__device__ inline ListRange find(const LookupGroup& g, const DeviceIndexView& index,
                                 sketch::feature_t feature) {
  const std::uint32_t owner = owner_shard(index, feature);
  const ShardView& shard = index.shards[owner];
  const std::uint32_t list = list_number(g, shard, feature);
  if (list == no_list) return ListRange{owner, 0, 0};
  const std::uint32_t begin = shard.offsets[list];
  return ListRange{owner, begin, shard.offsets[list + 1] - begin};
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
