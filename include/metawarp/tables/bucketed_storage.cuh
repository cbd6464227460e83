#pragma once
// What the bucketed tables (bucketed cuckoo, iceberg) share: buckets of B
// slots read by a tile of B threads, three seeded hash functions mapped to
// buckets, the bucketed storage policy over SlotStorage, the device
// operations over a ref's find_slot/place, and the pass that removes copies
// of a key left by racing inserts of the same key (cuckoo only: the iceberg
// insert never leaves copies). The host API is container.cuh.
//
// Buckets are never emptied except by clear(): erase writes a tombstone, and
// a tombstone counts as occupied for a bucket's load (it may be claimed
// again). Both tables rely on this: a bucket's load only grows, so a lookup
// may stop early on what a bucket's load says about where an insert went.
#include <cooperative_groups.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "metawarp/tables/launch.cuh"
#include "metawarp/tables/layouts.cuh"
#include "metawarp/tables/open_addressing.cuh"
#include "metawarp/tables/slot_storage.cuh"
#include "metawarp/tables/status.hpp"

namespace metawarp::tables {

namespace cg = cooperative_groups;

struct BucketedOptions {
  std::uint64_t seed = 0;  // the three hash functions are Hasher(3*seed), Hasher(3*seed+1), ...
  // Inserts look for the key first and the bulk insert ends with a pass that
  // removes copies left by two groups inserting the same key at once. A
  // caller that guarantees unique keys (and no key already stored) may turn
  // this off: each insert is then one bucket read and one CAS.
  bool unique_keys_checked = true;
};

template <int BucketSize>
inline constexpr bool valid_bucket_size = BucketSize == 8 || BucketSize == 16 || BucketSize == 32;

// Multiply-shift range reduction of a hash's high 32 bits to [0, buckets) (no division).
__host__ __device__ inline std::uint32_t reduce_to_buckets(std::uint64_t hash,
                                                           std::uint32_t buckets) {
  return std::uint32_t(((hash >> 32) * std::uint64_t(buckets)) >> 32);
}

// Three independent hash functions of one family, each reduced to a bucket.
template <class Hasher>
struct ThreeBucketHashes {
  Hasher h0{}, h1{}, h2{};
  std::uint32_t num_buckets = 0;

  ThreeBucketHashes() = default;
  ThreeBucketHashes(std::uint64_t seed, std::uint32_t buckets)
      : h0(3 * seed), h1(3 * seed + 1), h2(3 * seed + 2), num_buckets(buckets) {}

  __host__ __device__ std::uint64_t hash(int which, std::uint64_t key) const {
    return which == 0 ? h0(key) : which == 1 ? h1(key) : h2(key);
  }
  __host__ __device__ std::uint32_t bucket(int which, std::uint64_t key) const {
    return reduce_to_buckets(hash(which, key), num_buckets);
  }
};

// The bucketed storage policy: SlotStorage sized to whole buckets of B slots.
template <class Layout, int BucketSize>
class BucketedStorage : public SlotStorage<Layout> {
 public:
  static_assert(valid_bucket_size<BucketSize>, "bucket sizes are 8, 16 or 32 slots");
  using key_type = typename Layout::key_type;
  using sentinels = KeySentinels<key_type>;

  BucketedStorage(std::uint64_t min_capacity, cudaStream_t stream)
      : SlotStorage<Layout>(std::uint64_t(checked_buckets(min_capacity)) * BucketSize, stream) {}

  std::uint32_t num_buckets() const { return std::uint32_t(this->capacity() / BucketSize); }

  // Turns every copy of a key other than the one `ref.find_slot` reaches
  // first into a tombstone and warns duplicate_key. The copy a lookup finds
  // is never touched, so concurrent lookups keep finding the key.
  template <class Ref>
  void remove_racing_copies(const Ref& ref, cudaStream_t stream) const {
    const Layout l = this->layout();
    Status::bits_type* status = this->status_word();
    launch_group_per_item<BucketSize>(this->capacity(), stream,
        [=] __device__(const cg::thread_block_tile<BucketSize>& g, std::uint64_t slot) {
          const key_type k = l.load_key(slot);
          if (!sentinels::is_valid(k)) return;
          if (ref.find_slot(g, k) == slot) return;
          if (g.thread_rank() == 0 && l.try_erase(slot, k)) {
            atomicOr(status, Status::duplicate_key);
          }
        }, "bucketed table duplicate removal");
  }

 private:
  static std::uint32_t checked_buckets(std::uint64_t min_capacity) {
    const std::uint64_t buckets = std::max<std::uint64_t>(1, (min_capacity + BucketSize - 1) / BucketSize);
    if (buckets >= (std::uint64_t(1) << 32)) {
      throw std::invalid_argument("bucketed table capacity " + std::to_string(min_capacity) +
                                  " exceeds 2^32 buckets of " + std::to_string(BucketSize));
    }
    return std::uint32_t(buckets);
  }
};

// The device operations both bucketed refs share, over the Derived ref's
// find_slot(g, key), place(g, key, value), layout and table_status (CRTP).
template <class Derived, class K, class V, int BucketSize>
struct BucketedRefOps {
  using group_type = cg::thread_block_tile<BucketSize>;
  static constexpr int group_size = BucketSize;

  __device__ bool find(const group_type& g, K key, V& value_out) const {
    const std::uint64_t slot = self().find_slot(g, key);
    if (slot == no_slot) return false;
    value_out = self().layout.load_value(slot);
    return true;
  }
  __device__ bool contains(const group_type& g, K key) const {
    return self().find_slot(g, key) != no_slot;
  }
  __device__ bool erase(const group_type& g, K key) const {
    const std::uint64_t slot = self().find_slot(g, key);
    if (slot == no_slot) return false;
    bool erased = false;
    if (g.thread_rank() == 0) erased = self().layout.try_erase(slot, key);
    return g.shfl(erased, 0);
  }
  // Inserts if absent; the status also goes to the table's status word.
  // (Any group Derived::place takes: the cuckoo table's smaller tiles.)
  template <class Group>
  __device__ Status insert(const Group& g, K key, V value) const {
    const Status s = self().place(g, key, value);
    if (!s.ok() && g.thread_rank() == 0 && self().table_status != nullptr) {
      atomicOr(self().table_status, s.bits());
    }
    return s;
  }

 private:
  __device__ const Derived& self() const { return static_cast<const Derived&>(*this); }
};

}  // namespace metawarp::tables
