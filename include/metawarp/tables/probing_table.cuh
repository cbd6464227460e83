#pragma once
// What the flat tables (single value, multi value, counting, set; the bucket
// list's Ref too) share, written once. ProbingRef: the head of their device
// Ref (the probing core and the members that mean the same in each).
// ProbingTable: the whole host side of a table over its Ref (TableContainer
// over a TableCore, the member types, the constructor, ref()). A table header
// keeps its key semantics (its Ref) and its defaults, and what else differs.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "metawarp/tables/container.cuh"
#include "metawarp/tables/hashers.hpp"
#include "metawarp/tables/table_core.cuh"

namespace metawarp::tables {

// The head of a flat table's device Ref (non-owning; copied into kernels):
// the probing core. Every member is called by every thread of a group of
// group_size threads (cg::tiled_partition). Ops: the bulk members (bulk_ops
// bits) of a ProbingTable over this Ref.
template <class CoreRef, unsigned Ops = 0>
struct ProbingRef {
  using group_type = typename CoreRef::group_type;
  using key_type = typename CoreRef::key_type;
  static constexpr int group_size = CoreRef::group_size;
  static constexpr unsigned ops = Ops;
  CoreRef core;

  __device__ bool contains(const group_type& g, key_type key) const {
    return core.find_slot(g, key) != no_slot;
  }
  // Erases the key's one slot (a multi-value Ref erases every copy instead).
  __device__ bool erase(const group_type& g, key_type key) const {
    return core.erase(g, key, /*all_copies=*/false) != 0;
  }

 protected:
  // Inserts the pair (unique: a present key keeps its value, duplicate_key)
  // and adds the status to the table's status word.
  __device__ Status insert_pair(const group_type& g, key_type key,
                                typename CoreRef::value_type value, bool unique) const {
    const InsertResult r = core.insert(g, key, value, unique);
    core.record(g, r.status);
    return r.status;
  }
};

// A flat table: its slots in a TableCore<Layout, Probing, Hasher, GroupSize>,
// its device Ref RefOf<K, V, core ref>, a ProbingRef that names the table
// (Ref::name) and its bulk members (Ref::ops); the host API is TableContainer.
template <template <class, class, class> class RefOf, class K, class V, class Layout,
          class Probing, class Hasher, int GroupSize>
class ProbingTable
    : public TableContainer<
          ProbingTable<RefOf, K, V, Layout, Probing, Hasher, GroupSize>,
          TableCore<Layout, Probing, Hasher, GroupSize>,
          RefOf<K, V, typename TableCore<Layout, Probing, Hasher, GroupSize>::ref_type>::ops> {
 public:
  using Ref = RefOf<K, V, typename TableCore<Layout, Probing, Hasher, GroupSize>::ref_type>;
  using key_type = K;
  using value_type = V;
  using group_type = cg::thread_block_tile<GroupSize>;
  static constexpr int group_size = GroupSize;
  static constexpr const char* name = Ref::name;

  ProbingTable(std::uint64_t min_capacity, TableOptions options, cudaStream_t stream)
      : ProbingTable::TableContainer(min_capacity, options, stream) {}

  Ref ref() const { return Ref{{this->storage_.ref()}}; }
};

}  // namespace metawarp::tables
