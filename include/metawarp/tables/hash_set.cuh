#pragma once
// HashSet: distinct keys only (no values), on the shared probing core.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "metawarp/tables/probing_table.cuh"

namespace metawarp::tables {

// HashSet::Ref, the device handle (contains, erase: ProbingRef); the slots'
// "value" is the key's presence (KeyOnlyLayout).
template <class K, class Presence, class CoreRef>
struct SetRef : ProbingRef<CoreRef, bulk_ops::insert_keys | bulk_ops::contains | bulk_ops::erase> {
  // Inserting a present key is a no-op reported as duplicate_key (not
  // accumulated in the table status: for a set it is normal).
  __device__ Status insert(const typename CoreRef::group_type& g, K key) const {
    const InsertResult r = this->core.insert(g, key, Presence{true}, /*unique=*/true);
    if (r.status.has_error()) this->core.record(g, r.status);
    return r.status;
  }
  static constexpr const char* name = "HashSet";
};

template <class K, class Probing = DoubleHashing, class Hasher = MurmurHasher, int GroupSize = 4>
struct HashSet : ProbingTable<SetRef, K, bool, KeyOnlyLayout<K>, Probing, Hasher, GroupSize> {
  using HashSet::ProbingTable::ProbingTable;

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
