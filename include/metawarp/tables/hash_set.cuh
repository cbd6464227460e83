#pragma once
// HashSet: distinct keys only (no values), on the shared probing core.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "metawarp/tables/container.cuh"
#include "metawarp/tables/hashers.hpp"
#include "metawarp/tables/table_core.cuh"

namespace metawarp::tables {

template <class K, class Probing = DoubleHashing, class Hasher = MurmurHasher, int GroupSize = 4>
class HashSet
    : public TableContainer<HashSet<K, Probing, Hasher, GroupSize>,
                            TableCore<KeyOnlyLayout<K>, Probing, Hasher, GroupSize>,
                            bulk_ops::insert_keys | bulk_ops::contains | bulk_ops::erase> {
  using core_type = TableCore<KeyOnlyLayout<K>, Probing, Hasher, GroupSize>;

 public:
  using key_type = K;
  using group_type = cg::thread_block_tile<GroupSize>;
  static constexpr int group_size = GroupSize;
  static constexpr const char* name = "HashSet";

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
      : HashSet::TableContainer(min_capacity, options, stream) {}

  Ref ref() const { return Ref{this->storage_.ref()}; }

  // Bulk operations: TableContainer. A set has no values: its retrieve_all
  // and for_each give keys only (they hide the base's).
  std::uint64_t retrieve_all(K* keys_out, cudaStream_t stream) const {
    return this->storage_.retrieve_all(keys_out, static_cast<bool*>(nullptr), stream);
  }
  template <class F>
  void for_each(F f, cudaStream_t stream) const {
    this->storage_.for_each_occupied([=] __device__(std::uint64_t, K key) { f(key); }, stream);
  }
};

}  // namespace metawarp::tables
