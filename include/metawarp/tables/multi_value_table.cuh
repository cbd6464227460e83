#pragma once
// MultiValueHashTable: a key may be stored many times, one slot per
// (key, value) pair. Simple and fast for few values per key; for many values
// per key see BucketListHashTable (stores the key once).
//
// Retrieval of all values of a batch of keys is three steps:
//   std::uint64_t total = table.retrieve_offsets(keys, n, offsets);  // count + scan ("dry run")
//   table.retrieve(keys, n, offsets, values);                         // values[offsets[i]..offsets[i+1])
#include <cuda_runtime_api.h>

#include <cstdint>

#include "metawarp/tables/probing_table.cuh"

namespace metawarp::tables {

// MultiValueHashTable::Ref, the device handle (contains: ProbingRef).
template <class K, class V, class CoreRef>
struct MultiValueRef : ProbingRef<CoreRef, bulk_ops::insert_pairs | bulk_ops::contains |
                                  bulk_ops::count | bulk_ops::erase | bulk_ops::retrieve> {
  // Calls f(value, rank) on the lane holding each value of `key`
  // (rank = 0, 1, ... in probing order); returns the number of values.
  // With a limit it stops probing once that many values were seen (ranks
  // >= limit of the last window read are still passed to f).
  template <class F>
  __device__ std::uint64_t for_each_value(const typename CoreRef::group_type& g, K key, F&& f,
                                          std::uint64_t limit = ~std::uint64_t(0)) const {
    return this->core.for_each_value_of(g, key, limit,
                                        [&](std::uint64_t, V value, std::uint64_t rank) {
      f(value, rank);
    });
  }
  // Always a new slot.
  __device__ Status insert(const typename CoreRef::group_type& g, K key, V value) const {
    return this->insert_pair(g, key, value, /*unique=*/false);
  }
  // Values stored for the key.
  __device__ std::uint64_t count(const typename CoreRef::group_type& g, K key) const {
    return this->core.count(g, key);
  }
  // Every value of the key.
  __device__ std::uint64_t erase(const typename CoreRef::group_type& g, K key) const {
    return this->core.erase(g, key, /*all_copies=*/true);
  }
  static constexpr const char* name = "MultiValueHashTable";
};

template <class K, class V, class Layout = DefaultLayout<K, V>, class Probing = DoubleHashing,
          class Hasher = MurmurHasher, int GroupSize = 8>
struct MultiValueHashTable : ProbingTable<MultiValueRef, K, V, Layout, Probing, Hasher, GroupSize> {
  using MultiValueHashTable::ProbingTable::ProbingTable;

  // Bulk operations: TableContainer (count: values stored per key; erase:
  // every value of the key; retrieve_offsets: the dry run) and this one.
  // Writes the values of keys[i] to values_out[offsets[i] .. offsets[i+1]).
  // Each key's probing stops once its room is filled: with one value per key
  // that is the window of the hit, not the next window with an empty slot
  // (the dry run's count already paid for that walk).
  void retrieve(const K* keys, std::uint64_t n, const std::uint64_t* offsets, V* values_out,
                cudaStream_t stream) const {
    const auto r = this->ref();
    launch_group_per_item<GroupSize>(n, stream,
                                     [=] __device__(const cg::thread_block_tile<GroupSize>& g,
                                                    std::uint64_t i) {
      V* out = values_out + offsets[i];
      const std::uint64_t room = offsets[i + 1] - offsets[i];
      r.for_each_value(g, keys[i], [&](V value, std::uint64_t rank) {
        if (rank < room) out[rank] = value;
      }, room);
    }, "MultiValueHashTable::retrieve");
  }
};

}  // namespace metawarp::tables
