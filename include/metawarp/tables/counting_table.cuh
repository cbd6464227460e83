#pragma once
// CountingHashTable: how often each key was inserted. A new key's slot is
// claimed with count 0 and every insert (including the claiming one) then
// adds 1 atomically, so concurrent inserts of one key never lose a count.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>

#include "metawarp/tables/bulk.cuh"
#include "metawarp/tables/hashers.hpp"
#include "metawarp/tables/table_core.cuh"

namespace metawarp::tables {

template <class K, class Count = std::uint32_t, class Layout = DefaultLayout<K, Count>,
          class Probing = DoubleHashing, class Hasher = MurmurHasher, int GroupSize = 4>
class CountingHashTable
    : public CoreContainer<TableCore<Layout, Probing, Hasher, GroupSize>> {
  static_assert(std::is_same_v<Count, std::uint32_t> || std::is_same_v<Count, std::uint64_t>,
                "counts are 32- or 64-bit (atomicAdd widths)");
  using core_type = TableCore<Layout, Probing, Hasher, GroupSize>;

 public:
  using key_type = K;
  using value_type = Count;
  using group_type = cg::thread_block_tile<GroupSize>;
  static constexpr int group_size = GroupSize;

  struct Ref {
    static constexpr int group_size = GroupSize;
    typename core_type::ref_type core;

    __device__ Status insert(const group_type& g, K key) const {
      const InsertResult r = core.insert(g, key, Count{0}, /*unique=*/true, /*store_value=*/false);
      if (r.slot == no_slot) {
        core.record(g, r.status);
        return r.status;
      }
      if (g.thread_rank() == 0) {
        Count* count = core.layout.value_ptr(r.slot);
        if constexpr (sizeof(Count) == 4) {
          atomicAdd(reinterpret_cast<unsigned int*>(count), 1u);
        } else {
          atomicAdd(reinterpret_cast<unsigned long long*>(count), 1ull);
        }
      }
      return Status();
    }
    __device__ Count count(const group_type& g, K key) const {
      const std::uint64_t slot = core.find_slot(g, key);
      return slot == no_slot ? Count{0} : core.layout.load_value(slot);
    }
    __device__ bool erase(const group_type& g, K key) const {
      return core.erase(g, key, /*all_copies=*/false) != 0;
    }
  };

  CountingHashTable(std::uint64_t min_capacity, TableOptions options, cudaStream_t stream)
      : CoreContainer<core_type>(min_capacity, options, stream) {}

  Ref ref() const { return Ref{this->core_.ref()}; }

  // Counts one occurrence per input key (tables/bulk.cuh).
  void insert(const K* keys, std::uint64_t n, cudaStream_t stream, Status* status_out = nullptr) {
    bulk::insert_keys(ref(), keys, n, stream, status_out, "CountingHashTable::insert");
  }
  // counts_out[i] = occurrences of keys[i] (0 when absent).
  void count(const K* keys, std::uint64_t n, Count* counts_out, cudaStream_t stream) const {
    bulk::count(ref(), keys, n, counts_out, stream, "CountingHashTable::count");
  }
  void erase(const K* keys, std::uint64_t n, cudaStream_t stream, Status* status_out = nullptr) {
    bulk::erase(ref(), keys, n, stream, status_out, "CountingHashTable::erase");
  }
  std::uint64_t retrieve_all(K* keys_out, Count* counts_out, cudaStream_t stream) const {
    return this->core_.retrieve_all(keys_out, counts_out, stream);
  }
  template <class F>
  void for_each(F f, cudaStream_t stream) const {
    const auto layout = this->core_.ref().layout;
    this->core_.for_each_occupied([=] __device__(std::uint64_t slot, K key) {
      f(key, layout.load_value(slot));
    }, stream);
  }
};

}  // namespace metawarp::tables
