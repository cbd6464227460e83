#pragma once
// The one host-side base of the open-addressing tables (single value, multi
// value, counting, set, bucket list, bucketed cuckoo, iceberg): it owns the
// table's storage (TableCore or BucketedStorage, both a SlotStorage) and
// answers the members every table answers the same way, and forwards each
// bulk operation to bulk.cuh over the Derived table's ref() (CRTP).
//
// Derived provides `Ref ref() const` and `static constexpr const char* name`
// (labels the kernels); `Ops` (BulkOps bits) names the bulk members its Ref
// supports: the others are not declared (requires-clauses). A table whose
// members mean something else (the bucket list's size counts values) hides
// the base's. A table whose
// bulk insert needs a pass afterwards (the cuckoo table's racing copies)
// declares `void after_bulk_insert(cudaStream_t)` and befriends the base.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <utility>

#include "metawarp/tables/bulk.cuh"
#include "metawarp/tables/status.hpp"

namespace metawarp::tables {

namespace bulk_ops {
enum : unsigned {
  insert_pairs = 1u << 0,  // insert(keys, values, n, ...)
  insert_keys = 1u << 1,   // insert(keys, n, ...)   (set, counting)
  find = 1u << 2,
  contains = 1u << 3,
  count = 1u << 4,
  erase = 1u << 5,
  retrieve = 1u << 6,  // retrieve_offsets (the dry run of a multi-value retrieve)
};
}  // namespace bulk_ops

// Value: the values a bulk insert takes, when they are not the slots' (the
// bucket list stores a list handle per key).
template <class Derived, class Storage, unsigned Ops, class Value = typename Storage::value_type>
class TableContainer {
  static constexpr bool has(unsigned op) { return (Ops & op) != 0; }

 public:
  using K = typename Storage::key_type;
  using V = Value;

  std::uint64_t capacity() const { return storage_.capacity(); }
  std::uint64_t bytes() const { return storage_.bytes(); }
  // Occupied slots: keys (single value, set, counting, bucketed) or pairs
  // (multi value). Synchronises `stream`.
  std::uint64_t size(cudaStream_t stream) const { return storage_.count_occupied(stream); }
  // Occupied slots / slots (synchronises `stream`).
  double load_factor(cudaStream_t stream) const {
    return double(storage_.count_occupied(stream)) / double(capacity());
  }
  void clear(cudaStream_t stream) { storage_.clear(stream); }
  Status peek_status(cudaStream_t stream) const { return storage_.peek_status(stream); }
  Status pop_status(cudaStream_t stream) { return storage_.pop_status(stream); }

  // Every stored (key, value) (unspecified order; outputs need size() entries,
  // either may be null); returns how many (synchronises `stream`).
  std::uint64_t retrieve_all(K* keys_out, V* values_out, cudaStream_t stream) const {
    return storage_.retrieve_all(keys_out, values_out, stream);
  }
  // Calls the device functor f(key, value) once per stored pair.
  template <class F>
  void for_each(F f, cudaStream_t stream) const {
    const auto layout = storage_.layout();
    storage_.for_each_occupied([=] __device__(std::uint64_t slot, K key) {
      f(key, layout.load_value(slot));
    }, stream);
  }

  // Bulk operations on n device-resident items (tables/bulk.cuh); status_out
  // (optional, n entries) receives each item's status.
  void insert(const K* keys, const V* values, std::uint64_t n, cudaStream_t stream,
              Status* status_out = nullptr)
    requires(has(bulk_ops::insert_pairs))
  {
    bulk::insert(self().ref(), keys, values, n, stream, status_out, Derived::name);
    static_cast<Derived&>(*this).after_bulk_insert(stream);
  }
  void insert(const K* keys, std::uint64_t n, cudaStream_t stream, Status* status_out = nullptr)
    requires(has(bulk_ops::insert_keys))
  {
    bulk::insert_keys(self().ref(), keys, n, stream, status_out, Derived::name);
  }
  // values_out[i] = value of keys[i], or not_found_value (status key_not_found).
  void find(const K* keys, std::uint64_t n, V* values_out, V not_found_value, cudaStream_t stream,
            Status* status_out = nullptr) const
    requires(has(bulk_ops::find))
  {
    bulk::find(self().ref(), keys, n, values_out, not_found_value, stream, status_out,
               Derived::name);
  }
  void contains(const K* keys, std::uint64_t n, bool* out, cudaStream_t stream) const
    requires(has(bulk_ops::contains))
  {
    bulk::contains(self().ref(), keys, n, out, stream, Derived::name);
  }
  // counts_out[i] = what the Ref's count says of keys[i] (values stored, or
  // occurrences for the counting table; 0 when absent).
  template <class C>
    requires(has(bulk_ops::count))
  void count(const K* keys, std::uint64_t n, C* counts_out, cudaStream_t stream) const {
    bulk::count(self().ref(), keys, n, counts_out, stream, Derived::name);
  }
  // Erases the key (every value of it in a multi-value table).
  void erase(const K* keys, std::uint64_t n, cudaStream_t stream, Status* status_out = nullptr)
    requires(has(bulk_ops::erase))
  {
    bulk::erase(self().ref(), keys, n, stream, status_out, Derived::name);
  }
  // Dry run of a multi-value retrieve: offsets (n + 1 entries) receive where
  // each key's values go; returns the total number of values.
  std::uint64_t retrieve_offsets(const K* keys, std::uint64_t n, std::uint64_t* offsets,
                                 cudaStream_t stream) const
    requires(has(bulk_ops::retrieve))
  {
    return bulk::retrieve_offsets(self().ref(), keys, n, offsets, stream, Derived::name);
  }

 protected:
  template <class... Args>
  explicit TableContainer(Args&&... storage_args) : storage_(std::forward<Args>(storage_args)...) {}

  // Nothing to do after a bulk insert unless Derived says so (hides this).
  void after_bulk_insert(cudaStream_t) const {}

  Storage storage_;

 private:
  const Derived& self() const { return static_cast<const Derived&>(*this); }
};

}  // namespace metawarp::tables
