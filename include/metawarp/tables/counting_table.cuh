#pragma once
// CountingHashTable: how often each key was inserted. A new key's slot is
// claimed with count 0 and every insert (including the claiming one) then
// adds 1 atomically, so concurrent inserts of one key never lose a count.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>

#include "metawarp/tables/container.cuh"
#include "metawarp/tables/hashers.hpp"
#include "metawarp/tables/table_core.cuh"

namespace metawarp::tables {

template <class K, class Count = std::uint32_t, class Layout = DefaultLayout<K, Count>,
          class Probing = DoubleHashing, class Hasher = MurmurHasher, int GroupSize = 4>
class CountingHashTable
    : public TableContainer<CountingHashTable<K, Count, Layout, Probing, Hasher, GroupSize>,
                            TableCore<Layout, Probing, Hasher, GroupSize>,
                            bulk_ops::insert_keys | bulk_ops::count | bulk_ops::erase> {
  static_assert(std::is_same_v<Count, std::uint32_t> || std::is_same_v<Count, std::uint64_t>,
                "counts are 32- or 64-bit (atomicAdd widths)");
  using core_type = TableCore<Layout, Probing, Hasher, GroupSize>;

 public:
  using key_type = K;
  using value_type = Count;
  using group_type = cg::thread_block_tile<GroupSize>;
  static constexpr int group_size = GroupSize;
  static constexpr const char* name = "CountingHashTable";

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
      : CountingHashTable::TableContainer(min_capacity, options, stream) {}

  Ref ref() const { return Ref{this->storage_.ref()}; }
  // Bulk operations: TableContainer (insert counts one occurrence per input
  // key; count gives the occurrences, 0 when absent); retrieve_all and
  // for_each give (key, count).
};

}  // namespace metawarp::tables
