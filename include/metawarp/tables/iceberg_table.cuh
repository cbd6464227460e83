#pragma once
// IcebergTable: single value per key in buckets of B = 8, 16 or 32 slots read
// by a tile of B threads. Design after iceberg hashing (Bender et al.) as
// described by Awad et al., "Analyzing and Implementing GPU Hash Tables"
// (ALENEX 2023), sections 3.2 and 5.3; no code taken from either.
//
// Two levels with disjoint buckets of one slot array:
//   front yard  buckets [0, F): a key's front bucket is h0(k); it takes keys
//               until it is full (the common case: one bucket read, one CAS);
//   backyard    buckets [F, F + M), M = backyard_fraction of all buckets: a
//               key whose front bucket is full goes to the less loaded of its
//               two backyard buckets h1(k), h2(k) (power of two choices).
// Items never move. A backyard insert never fills a front bucket (the cause
// of the old single-level design's table_full at 0.8: secondary inserts
// filled other keys' primary buckets).
//
// Why it is race-free (docs/library.md "Iceberg" has the long form). While
// inserts run, no erase runs (the table's concurrency rule), so a slot goes
// from free (empty or tombstone) to holding a key at most once, and an empty
// slot never comes back before clear():
//  1. Same key, same bucket: every insert claims the LOWEST free slot of the
//     bucket it read and re-reads the bucket (looking for the key) after a
//     lost CAS. If two inserts of k claimed different slots a < b, the one
//     that chose b read slot a as taken, and a's only taker was the other
//     insert of k: it saw k and reported duplicate_key instead. So a bucket
//     never holds a key twice.
//  2. Same key, front vs backyard: an insert goes to the backyard only after
//     reading its front bucket with no free slot and without k. A slot taken
//     stays taken, so no insert can claim a front slot of that bucket later,
//     and one claimed earlier would have shown k.
//  3. Same key, two backyard buckets: the less-loaded choice depends on
//     loads that other keys change, so two inserts of k could pick different
//     buckets. Backyard inserts of keys with one front bucket therefore run
//     under that front bucket's lock bit (only inserts that overflow take
//     it, it is held for two bucket reads and a CAS, a holder waits for
//     nothing else): they run one after the other and the second sees k.
//  4. The threshold: a front bucket takes keys until FULL. A threshold below
//     B (the paper's primary threshold) would let one insert see load t-1 and
//     claim a front slot while another saw load t and went to the backyard:
//     two copies. With a separate backyard the threshold is not needed.
//  5. Lookups exit early on an EMPTY front slot (a tombstone does not
//     count): a key only went to the backyard when its front bucket had no
//     free slot, and empty slots never return, so a front bucket with an
//     empty slot proves the key is not in the backyard. For the same reason
//     an insert that finds no empty slot in front looks in the backyard
//     before claiming a front tombstone (the key may have overflowed before
//     an erase made that tombstone).
//  6. Loads are not counters: a bucket's load is read from its slots in the
//     same coalesced load the claim is chosen from, so no counter can
//     disagree with the claims.
// Lookups may overlap inserts: a pair stored before the lookup started is
// found; one being inserted may or may not be (with AoS/SoA its value may
// still be V{}, PackedLayout writes key and value in one CAS).
//
// Duplicate keys in one bulk insert (or concurrent device inserts): exactly
// one occurrence is stored, with its value (which occurrence wins depends on
// scheduling); every other occurrence reports duplicate_key. A key stored
// before keeps its value. A pair whose front bucket and both backyard
// buckets are full is not stored and reports table_full (per pair and in
// the table's status); nothing else is lost. With unique_keys_checked off
// the caller promises unique new keys: no look-ups, no lock.
#include <cooperative_groups.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/tables/bucketed_storage.cuh"
#include "metawarp/tables/container.cuh"
#include "metawarp/tables/hashers.hpp"
#include "metawarp/tables/layouts.cuh"

namespace metawarp::tables {

struct IcebergOptions : BucketedOptions {
  // Share of the buckets that form the backyard, in (0, 1); 0 = the default
  // for the bucket size (iceberg_default_backyard_fraction).
  double backyard_fraction = 0;
};

// Backyard share by bucket size, from a sequential simulation of this
// insert (2 M slots x 5 seeds; 60 k slots x 2000 seeds): no table_full up to
// a load of 0.85 (B = 8), 0.9 (B = 16; at 0.93 one pair in the 2000 small
// tables), 0.95 (B = 32); the paper's iceberg reaches 0.7, 0.86, 0.93.
// Beyond those loads table_full is reported.
template <int BucketSize>
inline constexpr double iceberg_default_backyard_fraction = BucketSize == 8 ? 0.25 : 0.1875;

// How many of a table's buckets are front yard (the rest are the backyard).
struct IcebergYards {
  std::uint32_t total = 0;
  std::uint32_t front = 0;

  static IcebergYards split(std::uint32_t total_buckets, double backyard_fraction) {
    if (!(backyard_fraction > 0 && backyard_fraction < 1)) {
      throw std::invalid_argument("iceberg backyard_fraction must be in (0, 1)");
    }
    const std::uint32_t total = std::max<std::uint32_t>(total_buckets, 2);
    const auto back = std::uint32_t(std::llround(double(total) * backyard_fraction));
    return {total, total - std::clamp<std::uint32_t>(back, 1, total - 1)};
  }
};

template <class K, class V, int BucketSize = 16, class Layout = DefaultLayout<K, V>,
          class Hasher = MurmurHasher>
class IcebergTable
    : public TableContainer<IcebergTable<K, V, BucketSize, Layout, Hasher>,
                            BucketedStorage<Layout, BucketSize>,
                            bulk_ops::insert_pairs | bulk_ops::find | bulk_ops::contains |
                                bulk_ops::erase> {
  using Base = typename IcebergTable::TableContainer;

 public:
  using key_type = K;
  using value_type = V;
  using layout_type = Layout;
  using group_type = cg::thread_block_tile<BucketSize>;
  using sentinels = KeySentinels<K>;
  static constexpr int group_size = BucketSize;
  static constexpr const char* name = "IcebergTable";
  // The bulk insert needs no racing-copy pass (see the header comment, 1-3).

  // find / contains / erase / insert come from BucketedRefOps.
  struct Ref : BucketedRefOps<Ref, K, V, BucketSize> {
    using group_type = cg::thread_block_tile<BucketSize>;
    Layout layout;
    ThreeBucketHashes<Hasher> hashes;  // 0: front yard, 1 and 2: backyard
    std::uint32_t front_buckets = 0;
    std::uint32_t back_buckets = 0;
    bool check_duplicates = true;
    Status::bits_type* table_status = nullptr;
    unsigned* overflow_locks = nullptr;  // one bit per front bucket

    // One bucket as the tile sees it (one coalesced load).
    struct Bucket {
      std::uint64_t base;
      K lane_key;      // this lane's slot
      unsigned free;   // lanes whose slot is empty or a tombstone
      unsigned empty;  // lanes whose slot was never used
      unsigned hit;    // lanes holding the key looked for
      __device__ int load() const { return BucketSize - __popc(free); }
    };

    __device__ std::uint32_t front_bucket(K key) const {
      return reduce_to_buckets(hashes.hash(0, key), front_buckets);
    }
    __device__ std::uint32_t back_bucket(int which, K key) const {
      return front_buckets + reduce_to_buckets(hashes.hash(which, key), back_buckets);
    }

    __device__ Bucket read(const group_type& g, std::uint32_t bucket, K key) const {
      Bucket b;
      b.base = std::uint64_t(bucket) * BucketSize;
      b.lane_key = layout.load_key(b.base + g.thread_rank());
      b.free = g.ballot(!sentinels::is_valid(b.lane_key));
      b.empty = g.ballot(b.lane_key == sentinels::empty);
      b.hit = g.ballot(b.lane_key == key);
      return b;
    }

    // CAS of the bucket's lowest free slot (rule 1 of the header comment).
    __device__ bool claim_lowest_free(const group_type& g, const Bucket& b, K key, V value) const {
      const int leader = __ffs(b.free) - 1;
      bool won = false;
      if (g.thread_rank() == leader) {
        won = layout.try_claim(b.base + leader, b.lane_key, key, value);
      }
      return g.shfl(won, leader);
    }

    // Slot of `key`, or no_slot.
    __device__ std::uint64_t find_slot(const group_type& g, K key) const {
      if (!sentinels::is_valid(key)) return no_slot;
      const Bucket front = read(g, front_bucket(key), key);
      if (front.hit) return front.base + __ffs(front.hit) - 1;
      if (front.empty) return no_slot;  // rule 5: never went to the backyard
      for (int which = 1; which <= 2; ++which) {
        const Bucket b = read(g, back_bucket(which, key), key);
        if (b.hit) return b.base + __ffs(b.hit) - 1;
      }
      return no_slot;
    }

    // The insert without status recording (BucketedRefOps::insert records).
    __device__ Status place(const group_type& g, K key, V value) const {
      if (!sentinels::is_valid(key)) return Status(Status::invalid_key);
      // Every lost CAS means another insert took one of the front bucket's B
      // slots: the loop ends within B + 1 rounds.
      for (int attempt = 0; attempt <= BucketSize; ++attempt) {
        const Bucket front = read(g, front_bucket(key), key);
        if (check_duplicates && front.hit) return Status(Status::duplicate_key);
        if (!front.free) return place_in_backyard(g, key, value);
        // Rule 5: no empty slot left, so the key may have overflowed earlier.
        if (check_duplicates && !front.empty && in_backyard(g, key)) {
          return Status(Status::duplicate_key);
        }
        if (claim_lowest_free(g, front, key, value)) return Status();
      }
      return Status(Status::table_full);  // not reached: see the bound above
    }

   private:
    __device__ bool in_backyard(const group_type& g, K key) const {
      return read(g, back_bucket(1, key), key).hit || read(g, back_bucket(2, key), key).hit;
    }

    // The key's front bucket is full (and stays full while inserts run).
    __device__ Status place_in_backyard(const group_type& g, K key, V value) const {
      const std::uint32_t lock = front_bucket(key);
      if (check_duplicates) acquire(g, lock);
      Status result(Status::table_full);
      // Every lost CAS means another insert took one of the two buckets' 2B
      // slots: the loop ends within 2B + 1 rounds.
      for (int attempt = 0; attempt <= 2 * BucketSize; ++attempt) {
        const Bucket b1 = read(g, back_bucket(1, key), key);
        const Bucket b2 = read(g, back_bucket(2, key), key);
        if (check_duplicates && (b1.hit || b2.hit)) {
          result = Status(Status::duplicate_key);
          break;
        }
        if (!b1.free && !b2.free) break;  // table_full
        const Bucket& target = (b2.free && (!b1.free || b2.load() < b1.load())) ? b2 : b1;
        if (claim_lowest_free(g, target, key, value)) {
          result = Status();
          break;
        }
      }
      if (check_duplicates) release(g, lock);
      return result;
    }

    // Rule 3: a spin lock of one bit. Lane 0 takes it; the fence orders the
    // tile's reads after the previous holder's claims (released after its
    // own fence), the tile sync hands that order to the other lanes.
    __device__ void acquire(const group_type& g, std::uint32_t bucket) const {
      if (g.thread_rank() == 0) {
        unsigned* word = overflow_locks + bucket / 32;
        const unsigned bit = 1u << (bucket % 32);
        for (unsigned pause = 32; atomicOr(word, bit) & bit; pause = min(2 * pause, 1024u)) {
          __nanosleep(pause);
        }
        __threadfence();
      }
      g.sync();
    }
    __device__ void release(const group_type& g, std::uint32_t bucket) const {
      g.sync();
      if (g.thread_rank() == 0) {
        __threadfence();
        atomicAnd(overflow_locks + bucket / 32, ~(1u << (bucket % 32)));
      }
    }
  };

  IcebergTable(std::uint64_t min_capacity, IcebergOptions options, cudaStream_t stream)
      : Base(std::uint64_t(yards_for(min_capacity, options).total) * BucketSize, stream),
        options_(resolved(options)),
        yards_(yards_for(min_capacity, options)),
        locks_((yards_.front + 31) / 32) {
    locks_.fill_bytes(0, stream);  // every insert releases what it takes: zero from here on
  }

  Ref ref() const {
    Ref r;
    r.layout = storage_.layout();
    r.hashes = ThreeBucketHashes<Hasher>(options_.seed, storage_.num_buckets());
    r.front_buckets = yards_.front;
    r.back_buckets = yards_.total - yards_.front;
    r.check_duplicates = options_.unique_keys_checked;
    r.table_status = storage_.status_word();
    r.overflow_locks = locks_.data();
    return r;
  }
  std::uint64_t front_capacity() const { return std::uint64_t(yards_.front) * BucketSize; }
  std::uint64_t backyard_capacity() const { return this->capacity() - front_capacity(); }
  std::uint64_t bytes() const { return Base::bytes() + locks_.size_bytes(); }
  // insert (TableContainer): table_full means some pairs found their front
  // bucket and both backyard buckets full; they are not stored, every other
  // pair is: more capacity (or a larger backyard_fraction) holds them.

 private:
  using Base::storage_;

  static IcebergOptions resolved(IcebergOptions o) {
    if (o.backyard_fraction == 0) {
      o.backyard_fraction = iceberg_default_backyard_fraction<BucketSize>;
    }
    return o;
  }
  static IcebergYards yards_for(std::uint64_t min_capacity, const IcebergOptions& options) {
    const std::uint64_t buckets = (min_capacity + BucketSize - 1) / BucketSize;
    if (buckets >= (std::uint64_t(1) << 32)) {
      throw std::invalid_argument("iceberg table capacity exceeds 2^32 buckets");
    }
    return IcebergYards::split(std::uint32_t(buckets), resolved(options).backyard_fraction);
  }

  IcebergOptions options_;
  IcebergYards yards_;
  cuda::device_buffer<unsigned> locks_;
};

}  // namespace metawarp::tables
