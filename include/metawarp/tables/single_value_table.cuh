#pragma once
// SingleValueHashTable: each key maps to exactly one value. Inserting a key
// that is already present keeps the first value and warns (duplicate_key).
#include <cuda_runtime_api.h>

#include <cstdint>

#include "metawarp/tables/bulk.cuh"
#include "metawarp/tables/hashers.hpp"
#include "metawarp/tables/table_core.cuh"

namespace metawarp::tables {

template <class K, class V, class Layout = DefaultLayout<K, V>, class Probing = DoubleHashing,
          class Hasher = MurmurHasher, int GroupSize = 4>
class SingleValueHashTable
    : public CoreContainer<TableCore<Layout, Probing, Hasher, GroupSize>> {
  using core_type = TableCore<Layout, Probing, Hasher, GroupSize>;

 public:
  using key_type = K;
  using value_type = V;
  using group_type = cg::thread_block_tile<GroupSize>;
  static constexpr int group_size = GroupSize;

  // Non-owning device handle; copy it into kernels. All members are called by
  // every thread of a group of GroupSize threads (cg::tiled_partition).
  struct Ref {
    static constexpr int group_size = GroupSize;
    typename core_type::ref_type core;

    __device__ Status insert(const group_type& g, K key, V value) const {
      const InsertResult r = core.insert(g, key, value, /*unique=*/true);
      core.record(g, r.status);
      return r.status;
    }
    // True and *value_out set when found.
    __device__ bool find(const group_type& g, K key, V& value_out) const {
      // A second read of the slot found: measured faster on an H100 than
      // taking the value from the probe's word (issue 14: 18.8 vs 18.1 G/s).
      const std::uint64_t slot = core.find_slot(g, key);
      if (slot == no_slot) return false;
      value_out = core.layout.load_value(slot);
      return true;
    }
    __device__ bool contains(const group_type& g, K key) const {
      return core.find_slot(g, key) != no_slot;
    }
    __device__ bool erase(const group_type& g, K key) const {
      return core.erase(g, key, /*all_copies=*/false) != 0;
    }
    __device__ std::uint64_t count(const group_type& g, K key) const {
      return contains(g, key) ? 1 : 0;
    }
  };

  SingleValueHashTable(std::uint64_t min_capacity, TableOptions options, cudaStream_t stream)
      : CoreContainer<core_type>(min_capacity, options, stream) {}

  Ref ref() const { return Ref{this->core_.ref()}; }

  // Bulk operations on n device-resident items (tables/bulk.cuh). A duplicate
  // key keeps its first value (warning duplicate_key).
  void insert(const K* keys, const V* values, std::uint64_t n, cudaStream_t stream,
              Status* status_out = nullptr) {
    bulk::insert(ref(), keys, values, n, stream, status_out, "SingleValueHashTable::insert");
  }
  // values_out[i] = value of keys[i], or not_found_value (status key_not_found).
  void find(const K* keys, std::uint64_t n, V* values_out, V not_found_value,
            cudaStream_t stream, Status* status_out = nullptr) const {
    bulk::find(ref(), keys, n, values_out, not_found_value, stream, status_out,
               "SingleValueHashTable::find");
  }
  void contains(const K* keys, std::uint64_t n, bool* out, cudaStream_t stream) const {
    bulk::contains(ref(), keys, n, out, stream, "SingleValueHashTable::contains");
  }
  // counts[i] = 1 if keys[i] is present, else 0.
  void count(const K* keys, std::uint64_t n, std::uint64_t* counts, cudaStream_t stream) const {
    bulk::count(ref(), keys, n, counts, stream, "SingleValueHashTable::count");
  }
  void erase(const K* keys, std::uint64_t n, cudaStream_t stream, Status* status_out = nullptr) {
    bulk::erase(ref(), keys, n, stream, status_out, "SingleValueHashTable::erase");
  }

  // All pairs (unspecified order); outputs need size() entries. Returns the count.
  std::uint64_t retrieve_all(K* keys_out, V* values_out, cudaStream_t stream) const {
    return this->core_.retrieve_all(keys_out, values_out, stream);
  }
  // Calls the device functor f(key, value) once per stored pair.
  template <class F>
  void for_each(F f, cudaStream_t stream) const {
    const auto layout = this->core_.ref().layout;
    this->core_.for_each_occupied([=] __device__(std::uint64_t slot, K key) {
      f(key, layout.load_value(slot));
    }, stream);
  }
};

}  // namespace metawarp::tables
