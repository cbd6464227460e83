#pragma once
// IcebergTable: single value per key in buckets of B = 8, 16 or 32 slots read
// by a tile of B threads. Design after Awad et al., "Analyzing and
// Implementing GPU Hash Tables" (ALENEX 2023), sections 3.2 and 5.3 (iceberg
// hashing, Bender et al.); no code taken from it.
//
// An insert goes to the key's primary bucket while that bucket holds fewer
// than `threshold` keys; otherwise to the less loaded of its two secondary
// buckets (the primary again if both are full). Items never move, so lookups
// may overlap inserts (with PackedLayout a reader never sees a stale value).
// A bucket's load only grows (tombstones count), so a primary bucket still
// below the threshold proves the key never went to a secondary bucket: a
// lookup then reads one bucket, else at most three.
#include <cooperative_groups.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <stdexcept>

#include "metawarp/tables/bucketed_storage.cuh"
#include "metawarp/tables/hashers.hpp"
#include "metawarp/tables/layouts.cuh"

namespace metawarp::tables {

struct IcebergOptions : BucketedOptions {
  int threshold = 0;  // primary bucket load below which it takes the key; 0 = 3/4 of the bucket
};

template <class K, class V, int BucketSize = 16, class Layout = DefaultLayout<K, V>,
          class Hasher = MurmurHasher>
class IcebergTable
    : public BucketedHostApi<IcebergTable<K, V, BucketSize, Layout, Hasher>, K, V> {
 public:
  using key_type = K;
  using value_type = V;
  using layout_type = Layout;
  using group_type = cg::thread_block_tile<BucketSize>;
  using sentinels = KeySentinels<K>;
  static constexpr int group_size = BucketSize;
  static constexpr const char* name = "IcebergTable";

  // find / contains / erase / insert come from BucketedRefOps.
  struct Ref : BucketedRefOps<Ref, K, V, BucketSize> {
    using group_type = cg::thread_block_tile<BucketSize>;
    Layout layout;
    ThreeBucketHashes<Hasher> hashes;  // 0: primary, 1 and 2: secondary
    int threshold = 0;
    bool check_duplicates = true;
    Status::bits_type* table_status = nullptr;

    // One bucket as the tile sees it.
    struct Bucket {
      std::uint64_t base;
      K lane_key;     // this lane's slot
      int load;       // occupied slots (keys and tombstones)
      unsigned free;  // lanes whose slot is empty or a tombstone
    };

    __device__ Bucket read(const group_type& g, int which, K key) const {
      Bucket b;
      b.base = std::uint64_t(hashes.bucket(which, key)) * BucketSize;
      b.lane_key = layout.load_key(b.base + g.thread_rank());
      b.load = __popc(g.ballot(b.lane_key != sentinels::empty));
      b.free = g.ballot(!sentinels::is_valid(b.lane_key));
      return b;
    }

    // Slot of `key` (first copy in lookup order: primary, secondary 0, 1), or no_slot.
    __device__ std::uint64_t find_slot(const group_type& g, K key) const {
      if (!sentinels::is_valid(key)) return no_slot;
      for (int which = 0; which < 3; ++which) {
        const Bucket b = read(g, which, key);
        const unsigned hit = g.ballot(b.lane_key == key);
        if (hit) return b.base + __ffs(hit) - 1;
        if (which == 0 && b.load < threshold) return no_slot;  // never went to a secondary
      }
      return no_slot;
    }

    // The insert without status recording (BucketedRefOps::insert records).
    __device__ Status place(const group_type& g, K key, V value) const {
      if (!sentinels::is_valid(key)) return Status(Status::invalid_key);
      // The buckets read are the ones find_slot would read, so checking them
      // for the key on every (re)try is the duplicate check, also against a
      // racing insert of the same key that just won a slot.
      const auto holds_key = [&](const Bucket& b) {
        return check_duplicates && g.any(b.lane_key == key);
      };
      // Each failed CAS means another insert took a slot: bounded by the
      // three buckets' slots in total.
      for (int attempt = 0; attempt < 3 * BucketSize + 1; ++attempt) {
        Bucket target = read(g, 0, key);
        if (holds_key(target)) return Status(Status::duplicate_key);
        if (target.load >= threshold) {
          const Bucket s0 = read(g, 1, key);
          const Bucket s1 = read(g, 2, key);
          if (holds_key(s0) || holds_key(s1)) return Status(Status::duplicate_key);
          if (s0.free || s1.free) {
            target = (s1.free && (!s0.free || s1.load < s0.load)) ? s1 : s0;
          }
        }
        if (!target.free) return Status(Status::table_full);
        const int leader = __ffs(target.free) - 1;
        bool won = false;
        if (g.thread_rank() == leader) {
          won = layout.try_claim(target.base + leader, target.lane_key, key, value);
        }
        if (g.shfl(won, leader)) return Status();
      }
      return Status(Status::table_full);
    }
  };

  IcebergTable(std::uint64_t min_capacity, IcebergOptions options, cudaStream_t stream)
      : options_(checked(options)), storage_(min_capacity, stream) {}

  Ref ref() const {
    return Ref{{},
               storage_.layout(),
               ThreeBucketHashes<Hasher>(options_.seed, storage_.num_buckets()),
               options_.threshold,
               options_.unique_keys_checked,
               storage_.status_word()};
  }
  int threshold() const { return options_.threshold; }
  // insert (BucketedHostApi): table_full means some pair found all three
  // buckets full (it is not stored; the others are): more capacity or another seed.

 private:
  friend class BucketedHostApi<IcebergTable, K, V>;
  const IcebergOptions& options() const { return options_; }
  const BucketedStorage<Layout, BucketSize>& storage() const { return storage_; }
  BucketedStorage<Layout, BucketSize>& storage() { return storage_; }

  static IcebergOptions checked(IcebergOptions o) {
    if (o.threshold == 0) o.threshold = BucketSize - BucketSize / 4;
    if (o.threshold < 1 || o.threshold > BucketSize) {
      throw std::invalid_argument("iceberg threshold must be in [1, bucket size]");
    }
    return o;
  }

  IcebergOptions options_;
  BucketedStorage<Layout, BucketSize> storage_;
};

}  // namespace metawarp::tables
