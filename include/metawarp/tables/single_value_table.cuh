#pragma once
// SingleValueHashTable: each key maps to exactly one value. Inserting a key
// that is already present keeps the first value and warns (duplicate_key).
#include <cuda_runtime_api.h>

#include <cstdint>

#include "metawarp/tables/hashers.hpp"
#include "metawarp/tables/table_core.cuh"

namespace metawarp::tables {

template <class K, class V, class Layout = DefaultLayout<K, V>, class Probing = DoubleHashing,
          class Hasher = MurmurHasher, int GroupSize = 4>
class SingleValueHashTable {
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
  };

  explicit SingleValueHashTable(std::uint64_t min_capacity, TableOptions options = {},
                                cudaStream_t stream = nullptr)
      : core_(min_capacity, options, stream) {}

  Ref ref() const { return Ref{core_.ref()}; }
  std::uint64_t capacity() const { return core_.capacity(); }
  std::uint64_t bytes() const { return core_.bytes(); }

  // Bulk insert of n device-resident pairs. status_out (optional, n entries)
  // receives each pair's status; all statuses also accumulate in the table.
  void insert(const K* keys, const V* values, std::uint64_t n, cudaStream_t stream = nullptr,
              Status* status_out = nullptr) {
    const Ref r = ref();
    launch_group_per_item<GroupSize>(n, stream, [=] __device__(const group_type& g, std::uint64_t i) {
      const Status s = r.insert(g, keys[i], values[i]);
      if (status_out != nullptr && g.thread_rank() == 0) status_out[i] = s;
    }, "SingleValueHashTable::insert");
  }

  // values_out[i] = value of keys[i], or not_found_value (status key_not_found).
  void find(const K* keys, std::uint64_t n, V* values_out, V not_found_value = V{},
            cudaStream_t stream = nullptr, Status* status_out = nullptr) const {
    const Ref r = ref();
    launch_group_per_item<GroupSize>(n, stream, [=] __device__(const group_type& g, std::uint64_t i) {
      V value = not_found_value;
      const K key = keys[i];
      const bool found = r.find(g, key, value);
      if (g.thread_rank() == 0) {
        values_out[i] = value;
        if (status_out != nullptr) {
          status_out[i] = Status(found ? 0u
                                       : (KeySentinels<K>::is_valid(key) ? Status::key_not_found
                                                                         : Status::invalid_key));
        }
      }
    }, "SingleValueHashTable::find");
  }

  void contains(const K* keys, std::uint64_t n, bool* out, cudaStream_t stream = nullptr) const {
    const Ref r = ref();
    launch_group_per_item<GroupSize>(n, stream, [=] __device__(const group_type& g, std::uint64_t i) {
      const bool found = r.contains(g, keys[i]);
      if (g.thread_rank() == 0) out[i] = found;
    }, "SingleValueHashTable::contains");
  }

  // counts[i] = 1 if keys[i] is present, else 0.
  void count(const K* keys, std::uint64_t n, std::uint64_t* counts,
             cudaStream_t stream = nullptr) const {
    const Ref r = ref();
    launch_group_per_item<GroupSize>(n, stream, [=] __device__(const group_type& g, std::uint64_t i) {
      const bool found = r.contains(g, keys[i]);
      if (g.thread_rank() == 0) counts[i] = found ? 1 : 0;
    }, "SingleValueHashTable::count");
  }

  void erase(const K* keys, std::uint64_t n, cudaStream_t stream = nullptr,
             Status* status_out = nullptr) {
    const Ref r = ref();
    launch_group_per_item<GroupSize>(n, stream, [=] __device__(const group_type& g, std::uint64_t i) {
      const bool erased = r.erase(g, keys[i]);
      if (status_out != nullptr && g.thread_rank() == 0) {
        status_out[i] = Status(erased ? 0u : Status::key_not_found);
      }
    }, "SingleValueHashTable::erase");
  }

  // All pairs (unspecified order); outputs need size() entries. Returns the count.
  std::uint64_t retrieve_all(K* keys_out, V* values_out, cudaStream_t stream = nullptr) const {
    return core_.retrieve_all(keys_out, values_out, stream);
  }

  // Calls the device functor f(key, value) once per stored pair.
  template <class F>
  void for_each(F f, cudaStream_t stream = nullptr) const {
    const auto layout = core_.ref().layout;
    core_.for_each_occupied([=] __device__(std::uint64_t slot, K key) {
      f(key, layout.load_value(slot));
    }, stream);
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
