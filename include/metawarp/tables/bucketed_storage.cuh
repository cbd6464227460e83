#pragma once
// What the bucketed tables (bucketed cuckoo, iceberg) share: buckets of B
// slots read by a tile of B threads, three seeded hash functions mapped to
// buckets, the owning slot storage with its status word, the device
// operations over a ref's find_slot/place, and the pass that removes copies
// of a key left by racing inserts of the same key (cuckoo only: the iceberg
// insert never leaves copies). The host API is bucketed_container.cuh.
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

#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/cuda/error.hpp"
#include "metawarp/tables/launch.cuh"
#include "metawarp/tables/layouts.cuh"
#include "metawarp/tables/open_addressing.cuh"
#include "metawarp/tables/status.hpp"
#include "metawarp/tables/status_word.hpp"

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

// Owning slot storage of a bucketed table: num_buckets * B slots in `Layout`,
// the accumulated status word and a counter for the slot scans.
template <class Layout, int BucketSize>
class BucketedStorage {
 public:
  static_assert(valid_bucket_size<BucketSize>, "bucket sizes are 8, 16 or 32 slots");
  using key_type = typename Layout::key_type;
  using value_type = typename Layout::value_type;
  using sentinels = KeySentinels<key_type>;

  BucketedStorage(std::uint64_t min_capacity, cudaStream_t stream)
      : num_buckets_(checked_buckets(min_capacity)),
        storage_(std::uint64_t(num_buckets_) * BucketSize),
        cursor_(1) {
    clear(stream);
  }

  Layout layout() const { return storage_.view(); }
  std::uint32_t num_buckets() const { return num_buckets_; }
  std::uint64_t capacity() const { return std::uint64_t(num_buckets_) * BucketSize; }
  std::uint64_t bytes() const { return storage_.bytes(); }
  Status::bits_type* status_word() const { return status_.data(); }

  void clear(cudaStream_t stream) {
    const Layout l = layout();
    launch_thread_per_item(capacity(), stream, [=] __device__(std::uint64_t i, bool valid) {
      if (valid) l.init_slot(i);
    }, "bucketed table clear");
    status_.clear(stream);
  }

  Status peek_status(cudaStream_t stream) const { return status_.peek(stream); }
  Status pop_status(cudaStream_t stream) { return status_.pop(stream); }

  // Slots holding a key (synchronises `stream`).
  std::uint64_t count_occupied(cudaStream_t stream) const {
    cursor_.fill_bytes(0, stream);
    const Layout l = layout();
    std::uint64_t* cursor = cursor_.data();
    launch_thread_per_item(capacity(), stream, [=] __device__(std::uint64_t i, bool valid) {
      warp_reserve(cursor, valid && sentinels::is_valid(l.load_key(i)));
    }, "bucketed table size");
    std::uint64_t count = 0;
    cursor_.copy_to_host(&count, 1, stream);
    cuda::check(cudaStreamSynchronize(stream), "reading a table counter");
    return count;
  }

  // Writes every stored pair (unspecified order); returns how many (synchronises).
  std::uint64_t retrieve_all(key_type* keys_out, value_type* values_out,
                             cudaStream_t stream) const {
    cursor_.fill_bytes(0, stream);
    const Layout l = layout();
    std::uint64_t* cursor = cursor_.data();
    launch_thread_per_item(capacity(), stream, [=] __device__(std::uint64_t i, bool valid) {
      const key_type k = valid ? l.load_key(i) : sentinels::empty;
      const bool take = sentinels::is_valid(k);
      const std::uint64_t at = warp_reserve(cursor, take);
      if (take) {
        keys_out[at] = k;
        if (values_out != nullptr) values_out[at] = l.load_value(i);
      }
    }, "bucketed table retrieve_all");
    std::uint64_t count = 0;
    cursor_.copy_to_host(&count, 1, stream);
    cuda::check(cudaStreamSynchronize(stream), "reading a table counter");
    return count;
  }

  // Turns every copy of a key other than the one `ref.find_slot` reaches
  // first into a tombstone and warns duplicate_key. The copy a lookup finds
  // is never touched, so concurrent lookups keep finding the key.
  template <class Ref>
  void remove_racing_copies(const Ref& ref, cudaStream_t stream) const {
    const Layout l = layout();
    Status::bits_type* status = status_word();
    launch_group_per_item<BucketSize>(capacity(), stream,
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

  std::uint32_t num_buckets_;
  typename Layout::Storage storage_;
  StatusWord status_;
  mutable cuda::device_buffer<std::uint64_t> cursor_;
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
