#pragma once
// HashSet: distinct keys only (no values), on the shared probing core.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "metawarp/tables/hashers.hpp"
#include "metawarp/tables/table_core.cuh"

namespace metawarp::tables {

template <class K, class Probing = DoubleHashing, class Hasher = MurmurHasher, int GroupSize = 4>
class HashSet {
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

  explicit HashSet(std::uint64_t min_capacity, TableOptions options = {},
                   cudaStream_t stream = nullptr)
      : core_(min_capacity, options, stream) {}

  Ref ref() const { return Ref{core_.ref()}; }
  std::uint64_t capacity() const { return core_.capacity(); }
  std::uint64_t bytes() const { return core_.bytes(); }

  void insert(const K* keys, std::uint64_t n, cudaStream_t stream = nullptr,
              Status* status_out = nullptr) {
    const Ref r = ref();
    launch_group_per_item<GroupSize>(n, stream, [=] __device__(const group_type& g, std::uint64_t i) {
      const Status s = r.insert(g, keys[i]);
      if (status_out != nullptr && g.thread_rank() == 0) status_out[i] = s;
    }, "HashSet::insert");
  }
  void contains(const K* keys, std::uint64_t n, bool* out, cudaStream_t stream = nullptr) const {
    const Ref r = ref();
    launch_group_per_item<GroupSize>(n, stream, [=] __device__(const group_type& g, std::uint64_t i) {
      const bool found = r.contains(g, keys[i]);
      if (g.thread_rank() == 0) out[i] = found;
    }, "HashSet::contains");
  }
  void erase(const K* keys, std::uint64_t n, cudaStream_t stream = nullptr) {
    const Ref r = ref();
    launch_group_per_item<GroupSize>(n, stream, [=] __device__(const group_type& g, std::uint64_t i) {
      r.erase(g, keys[i]);
    }, "HashSet::erase");
  }
  std::uint64_t retrieve_all(K* keys_out, cudaStream_t stream = nullptr) const {
    return core_.retrieve_all(keys_out, static_cast<bool*>(nullptr), stream);
  }
  template <class F>
  void for_each(F f, cudaStream_t stream = nullptr) const {
    core_.for_each_occupied([=] __device__(std::uint64_t, K key) { f(key); }, stream);
  }
  std::uint64_t size(cudaStream_t stream = nullptr) const { return core_.count_occupied(stream); }
  double load_factor(cudaStream_t stream = nullptr) const {
    return double(size(stream)) / double(capacity());
  }
  void clear(cudaStream_t stream = nullptr) { core_.clear(stream); }
  Status peek_status(cudaStream_t stream = nullptr) const { return core_.peek_status(stream); }
  Status pop_status(cudaStream_t stream = nullptr) { return core_.pop_status(stream); }

 private:
  core_type core_;
};

}  // namespace metawarp::tables
