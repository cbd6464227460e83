#pragma once
// HashSet: distinct keys only (no values), on the shared probing core.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "metawarp/tables/bulk.cuh"
#include "metawarp/tables/hashers.hpp"
#include "metawarp/tables/table_core.cuh"

namespace metawarp::tables {

template <class K, class Probing = DoubleHashing, class Hasher = MurmurHasher, int GroupSize = 4>
class HashSet : public CoreContainer<TableCore<KeyOnlyLayout<K>, Probing, Hasher, GroupSize>> {
  using core_type = TableCore<KeyOnlyLayout<K>, Probing, Hasher, GroupSize>;

 public:
  using key_type = K;
  using group_type = cg::thread_block_tile<GroupSize>;
  static constexpr int group_size = GroupSize;

  struct Ref {
    static constexpr int group_size = GroupSize;
    typename core_type::ref_type core;
    // Inserting a present key is a no-op reported as duplicate_key (not
    // accumulated in the table status: for a set it is normal).
    __device__ Status insert(const group_type& g, K key) const {
      const InsertResult r = core.insert(g, key, true, /*unique=*/true);
      if (r.status.has_error()) core.record(g, r.status);
      return r.status;
    }
    __device__ bool contains(const group_type& g, K key) const {
      return core.find_slot(g, key) != no_slot;
    }
    __device__ bool erase(const group_type& g, K key) const {
      return core.erase(g, key, /*all_copies=*/false) != 0;
    }
  };

  HashSet(std::uint64_t min_capacity, TableOptions options, cudaStream_t stream)
      : CoreContainer<core_type>(min_capacity, options, stream) {}

  Ref ref() const { return Ref{this->core_.ref()}; }

  // Bulk operations on n device-resident keys (tables/bulk.cuh).
  void insert(const K* keys, std::uint64_t n, cudaStream_t stream, Status* status_out = nullptr) {
    bulk::insert_keys(ref(), keys, n, stream, status_out, "HashSet::insert");
  }
  void contains(const K* keys, std::uint64_t n, bool* out, cudaStream_t stream) const {
    bulk::contains(ref(), keys, n, out, stream, "HashSet::contains");
  }
  void erase(const K* keys, std::uint64_t n, cudaStream_t stream, Status* status_out = nullptr) {
    bulk::erase(ref(), keys, n, stream, status_out, "HashSet::erase");
  }
  std::uint64_t retrieve_all(K* keys_out, cudaStream_t stream) const {
    return this->core_.retrieve_all(keys_out, static_cast<bool*>(nullptr), stream);
  }
  template <class F>
  void for_each(F f, cudaStream_t stream) const {
    this->core_.for_each_occupied([=] __device__(std::uint64_t, K key) { f(key); }, stream);
  }
};

}  // namespace metawarp::tables
