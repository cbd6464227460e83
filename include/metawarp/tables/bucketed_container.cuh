#pragma once
// The host side both bucketed tables (bucketed cuckoo, iceberg) share: the
// options and the owning BucketedStorage, and every bulk member forwarded to
// bulk.cuh over the Derived table's ref() (CRTP). A bucketed table header
// then holds its Ref (the key semantics) and its constructor.
//
// Derived provides: `Ref ref() const`, `static constexpr const char* name`
// (labels the kernels) and `static constexpr bool leaves_racing_copies`
// (true: two groups inserting one key at once may both store it, so a
// checked bulk insert ends with BucketedStorage::remove_racing_copies).
#include <cuda_runtime_api.h>

#include <cstdint>

#include "metawarp/tables/bucketed_storage.cuh"
#include "metawarp/tables/bulk.cuh"
#include "metawarp/tables/status.hpp"

namespace metawarp::tables {

template <class Derived, class Layout, int BucketSize, class Options>
class BucketedContainer {
 public:
  using K = typename Layout::key_type;
  using V = typename Layout::value_type;

  std::uint64_t capacity() const { return storage_.capacity(); }
  std::uint64_t bytes() const { return storage_.bytes(); }

  // status_out (optional, n entries): each pair's status.
  void insert(const K* keys, const V* values, std::uint64_t n, cudaStream_t stream,
              Status* status_out = nullptr) {
    bulk::insert(self().ref(), keys, values, n, stream, status_out, Derived::name);
    if constexpr (Derived::leaves_racing_copies) {
      if (options_.unique_keys_checked) storage_.remove_racing_copies(self().ref(), stream);
    }
  }
  void find(const K* keys, std::uint64_t n, V* values_out, V not_found_value, cudaStream_t stream,
            Status* status_out = nullptr) const {
    bulk::find(self().ref(), keys, n, values_out, not_found_value, stream, status_out,
               Derived::name);
  }
  void contains(const K* keys, std::uint64_t n, bool* out, cudaStream_t stream) const {
    bulk::contains(self().ref(), keys, n, out, stream, Derived::name);
  }
  void erase(const K* keys, std::uint64_t n, cudaStream_t stream, Status* status_out = nullptr) {
    bulk::erase(self().ref(), keys, n, stream, status_out, Derived::name);
  }
  // Every stored pair (unspecified order); returns how many (synchronises).
  std::uint64_t retrieve_all(K* keys_out, V* values_out, cudaStream_t stream) const {
    return storage_.retrieve_all(keys_out, values_out, stream);
  }
  std::uint64_t size(cudaStream_t stream) const { return storage_.count_occupied(stream); }
  double load_factor(cudaStream_t stream) const { return double(size(stream)) / double(capacity()); }
  void clear(cudaStream_t stream) { storage_.clear(stream); }
  Status peek_status(cudaStream_t stream) const { return storage_.peek_status(stream); }
  Status pop_status(cudaStream_t stream) { return storage_.pop_status(stream); }

 protected:
  BucketedContainer(std::uint64_t min_capacity, Options options, cudaStream_t stream)
      : options_(options), storage_(min_capacity, stream) {}

  Options options_;
  BucketedStorage<Layout, BucketSize> storage_;

 private:
  const Derived& self() const { return static_cast<const Derived&>(*this); }
};

}  // namespace metawarp::tables
