#pragma once
// CountingHashTable: how often each key was inserted. A new key's slot is
// claimed with count 0 and every insert (including the claiming one) then
// adds 1 atomically, so concurrent inserts of one key never lose a count.
#include <cstdint>
#include <type_traits>

#include "metawarp/tables/probing_table.cuh"

namespace metawarp::tables {

// CountingHashTable::Ref, the device handle (erase: ProbingRef). The bulk
// insert counts one occurrence per input key; retrieve_all and for_each give
// (key, count).
template <class K, class Count, class CoreRef>
struct CountingRef
    : ProbingRef<CoreRef, bulk_ops::insert_keys | bulk_ops::count | bulk_ops::erase> {
  static_assert(std::is_same_v<Count, std::uint32_t> || std::is_same_v<Count, std::uint64_t>,
                "counts are 32- or 64-bit (atomicAdd widths)");

  __device__ Status insert(const typename CoreRef::group_type& g, K key) const {
    const InsertResult r =
        this->core.insert(g, key, Count{0}, /*unique=*/true, /*store_value=*/false);
    if (r.slot == no_slot) {
      this->core.record(g, r.status);
      return r.status;
    }
    if (g.thread_rank() == 0) {
      Count* count = this->core.layout.value_ptr(r.slot);
      if constexpr (sizeof(Count) == 4) {
        atomicAdd(reinterpret_cast<unsigned int*>(count), 1u);
      } else {
        atomicAdd(reinterpret_cast<unsigned long long*>(count), 1ull);
      }
    }
    return Status();
  }
  // The key's occurrences, 0 when absent.
  __device__ Count count(const typename CoreRef::group_type& g, K key) const {
    const std::uint64_t slot = this->core.find_slot(g, key);
    return slot == no_slot ? Count{0} : this->core.layout.load_value(slot);
  }
  static constexpr const char* name = "CountingHashTable";
};

template <class K, class Count = std::uint32_t, class Layout = DefaultLayout<K, Count>,
          class Probing = DoubleHashing, class Hasher = MurmurHasher, int GroupSize = 4>
struct CountingHashTable : ProbingTable<CountingRef, K, Count, Layout, Probing, Hasher, GroupSize> {
  using CountingHashTable::ProbingTable::ProbingTable;
};

}  // namespace metawarp::tables
