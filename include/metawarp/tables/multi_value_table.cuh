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

#include "metawarp/tables/hashers.hpp"
#include "metawarp/tables/scan.cuh"
#include "metawarp/tables/table_core.cuh"

namespace metawarp::tables {

template <class K, class V, class Layout = DefaultLayout<K, V>, class Probing = DoubleHashing,
          class Hasher = MurmurHasher, int GroupSize = 8>
class MultiValueHashTable {
  using core_type = TableCore<Layout, Probing, Hasher, GroupSize>;

 public:
  using key_type = K;
  using value_type = V;
  using group_type = cg::thread_block_tile<GroupSize>;
  static constexpr int group_size = GroupSize;

  struct Ref {
    static constexpr int group_size = GroupSize;
    typename core_type::ref_type core;

    __device__ Status insert(const group_type& g, K key, V value) const {
      const InsertResult r = core.insert(g, key, value, /*unique=*/false);
      core.record(g, r.status);
      return r.status;
    }
    // Calls f(value, rank) on the lane holding each value of `key`
    // (rank = 0, 1, ... in probing order); returns the number of values.
    template <class F>
    __device__ std::uint64_t for_each_value(const group_type& g, K key, F&& f) const {
      const auto layout = core.layout;
      return core.for_each_slot_of(g, key, [&](std::uint64_t slot, std::uint64_t rank) {
        f(layout.load_value(slot), rank);
      });
    }
    __device__ std::uint64_t count(const group_type& g, K key) const { return core.count(g, key); }
    __device__ bool contains(const group_type& g, K key) const {
      return core.find_slot(g, key) != no_slot;
    }
    __device__ std::uint64_t erase(const group_type& g, K key) const {
      return core.erase(g, key, /*all_copies=*/true);
    }
  };

  explicit MultiValueHashTable(std::uint64_t min_capacity, TableOptions options = {},
                               cudaStream_t stream = nullptr)
      : core_(min_capacity, options, stream) {}

  Ref ref() const { return Ref{core_.ref()}; }
  std::uint64_t capacity() const { return core_.capacity(); }
  std::uint64_t bytes() const { return core_.bytes(); }

  void insert(const K* keys, const V* values, std::uint64_t n, cudaStream_t stream = nullptr,
              Status* status_out = nullptr) {
    const Ref r = ref();
    launch_group_per_item<GroupSize>(n, stream, [=] __device__(const group_type& g, std::uint64_t i) {
      const Status s = r.insert(g, keys[i], values[i]);
      if (status_out != nullptr && g.thread_rank() == 0) status_out[i] = s;
    }, "MultiValueHashTable::insert");
  }

  // counts[i] = number of values stored for keys[i].
  void count(const K* keys, std::uint64_t n, std::uint64_t* counts,
             cudaStream_t stream = nullptr) const {
    const Ref r = ref();
    launch_group_per_item<GroupSize>(n, stream, [=] __device__(const group_type& g, std::uint64_t i) {
      const std::uint64_t c = r.count(g, keys[i]);
      if (g.thread_rank() == 0) counts[i] = c;
    }, "MultiValueHashTable::count");
  }

  // Dry run: offsets (n + 1 entries) receive where each key's values go;
  // returns the total number of values (the size retrieve() needs).
  std::uint64_t retrieve_offsets(const K* keys, std::uint64_t n, std::uint64_t* offsets,
                                 cudaStream_t stream = nullptr) const {
    count(keys, n, offsets, stream);
    return counts_to_offsets(offsets, n, stream);
  }

  // Writes the values of keys[i] to values_out[offsets[i] .. offsets[i+1]).
  void retrieve(const K* keys, std::uint64_t n, const std::uint64_t* offsets, V* values_out,
                cudaStream_t stream = nullptr) const {
    const Ref r = ref();
    launch_group_per_item<GroupSize>(n, stream, [=] __device__(const group_type& g, std::uint64_t i) {
      V* out = values_out + offsets[i];
      const std::uint64_t room = offsets[i + 1] - offsets[i];
      r.for_each_value(g, keys[i], [&](V value, std::uint64_t rank) {
        if (rank < room) out[rank] = value;  // table changed since the dry run: never overrun
      });
    }, "MultiValueHashTable::retrieve");
  }

  void contains(const K* keys, std::uint64_t n, bool* out, cudaStream_t stream = nullptr) const {
    const Ref r = ref();
    launch_group_per_item<GroupSize>(n, stream, [=] __device__(const group_type& g, std::uint64_t i) {
      const bool found = r.contains(g, keys[i]);
      if (g.thread_rank() == 0) out[i] = found;
    }, "MultiValueHashTable::contains");
  }

  // Erases every value of each key.
  void erase(const K* keys, std::uint64_t n, cudaStream_t stream = nullptr) {
    const Ref r = ref();
    launch_group_per_item<GroupSize>(n, stream, [=] __device__(const group_type& g, std::uint64_t i) {
      r.erase(g, keys[i]);
    }, "MultiValueHashTable::erase");
  }

  std::uint64_t retrieve_all(K* keys_out, V* values_out, cudaStream_t stream = nullptr) const {
    return core_.retrieve_all(keys_out, values_out, stream);
  }

  template <class F>
  void for_each(F f, cudaStream_t stream = nullptr) const {
    const auto layout = core_.ref().layout;
    core_.for_each_occupied([=] __device__(std::uint64_t slot, K key) {
      f(key, layout.load_value(slot));
    }, stream);
  }

  // Number of stored pairs.
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
