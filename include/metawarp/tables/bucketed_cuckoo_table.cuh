#pragma once
// BucketedCuckooTable (BCHT): single value per key, buckets of B = 8, 16 or 32
// slots, three hash functions. Design after Awad et al., "Analyzing and
// Implementing GPU Hash Tables" (ALENEX 2023), sections 3.1 and 5.2; no code
// taken from it.
//
// A key lives in one of its buckets h0(k), h1(k), h2(k). An insert reads
// bucket h0 with a tile of threads (B/T slots each, default_bucket_tile) and CASes the first
// free slot; if the bucket is full it exchanges the pair with a pseudo-random
// slot there and carries the evicted pair on to the next of *its* buckets
// (h_i -> h_{i+1 mod 3}), at most max_evictions times. A pair only ever enters
// h_{i+1} because h_i was full, and buckets never empty (tombstones count as
// occupied), so a lookup reads h0, h1, h2 in order and stops at the first
// bucket with an empty slot: at most three bucket reads, usually one.
//
// A chain that runs out of evictions leaves one pair (maybe another key's)
// outside the table and reports table_full: the table is then incomplete.
// build() starts from empty and retries with new seeds or more capacity.
//
// The pair must be one 64-bit word (exchanging it moves key and value
// together): sizeof(K) + sizeof(V) <= 8. Lookups must not overlap inserts (an
// evicted pair is briefly outside the table); use IcebergTable for that.
#include <cooperative_groups.h>
#include <cuda_runtime_api.h>

#include <cstdint>

#include "metawarp/tables/bucketed_storage.cuh"
#include "metawarp/tables/container.cuh"
#include "metawarp/tables/hashers.hpp"
#include "metawarp/tables/layouts.cuh"

namespace metawarp::tables {

struct CuckooOptions : BucketedOptions {
  std::uint32_t max_evictions = 128;  // eviction chain bound per insert
};

// How build() reacts to a failed attempt.
struct CuckooRetry {
  int max_attempts = 4;           // attempts in total, the first included
  double capacity_growth = 1.0;   // capacity factor per retry (1.0: same size, new seeds only)
};

struct CuckooBuildResult {
  Status status;          // of the last attempt
  int attempts = 0;
  std::uint64_t seed = 0;  // seed of the last attempt
  bool ok() const { return !status.has_error(); }
};

// Lanes that read one bucket in a lookup: 32 bytes (4 slots) per lane; in an
// insert at least 4 lanes. Measured on an H100 (bench_tables `variants`, every
// tile for B = 8, 16, 32, load 0.8 and 0.9): for B = 8 finds with 2 lanes ran
// 20.2 G/s hits and 14.2 misses at 0.9 where 8 lanes ran 14.2 and 9.8 (more
// keys in flight per warp, one 16-byte load per two slots), but inserts with
// 2 lanes fell to 7.7 G/s where 4 lanes ran 9.5 (a claim that loses its CAS
// re-reads the bucket: fewer slots per lane keep that short); for B = 16 and
// 32 the best tiles were 4 and 8 for both.
template <int BucketSize>
inline constexpr int default_bucket_tile = BucketSize / 4;
template <int BucketSize>
inline constexpr int default_insert_tile = BucketSize / 4 < 4 ? 4 : BucketSize / 4;

template <class K, class V, int BucketSize = 16, class Hasher = MurmurHasher,
          int FindTile = default_bucket_tile<BucketSize>, int InsertTile = default_insert_tile<BucketSize>>
class BucketedCuckooTable
    : public TableContainer<BucketedCuckooTable<K, V, BucketSize, Hasher, FindTile, InsertTile>,
                            BucketedStorage<PackedLayout<K, V>, BucketSize>,
                            bulk_ops::insert_pairs | bulk_ops::find | bulk_ops::contains |
                                bulk_ops::erase> {
  using Base = typename BucketedCuckooTable::TableContainer;
  friend Base;  // calls after_bulk_insert

 public:
  using key_type = K;
  using value_type = V;
  using layout_type = PackedLayout<K, V>;
  using group_type = cg::thread_block_tile<BucketSize>;
  using sentinels = KeySentinels<K>;
  static constexpr int group_size = BucketSize;
  static constexpr const char* name = "BucketedCuckooTable";
  static_assert(FindTile >= 1 && BucketSize % FindTile == 0 && InsertTile >= 1 &&
                    BucketSize % InsertTile == 0,
                "the find and insert tiles are powers of two up to the bucket size");
  // erase and insert (status recording around place) come from BucketedRefOps.
  struct Ref : BucketedRefOps<Ref, K, V, BucketSize> {
    using group_type = cg::thread_block_tile<BucketSize>;
    layout_type layout;
    ThreeBucketHashes<Hasher> hashes;
    std::uint32_t max_evictions = 0;
    bool check_duplicates = true;
    Status::bits_type* table_status = nullptr;

    // Lookups (find, contains, find_slot) and inserts work with a tile of
    // any T lanes dividing B: each lane reads B/T consecutive slots of the
    // bucket (16-byte loads). The bulk find and contains use the table's
    // FindTile (find_group_size), the bulk insert its InsertTile
    // (insert_group_size); erase a tile of B.
    static constexpr int find_group_size = FindTile;
    static constexpr int insert_group_size = InsertTile;
    // Inserts on a resident grid (measured faster, see GridShape).
    static constexpr GridShape insert_grid = GridShape::resident;

    // One bucket as seen by a tile: the first slot (in bucket order) holding
    // the key (-1: none) with its word, and whether a slot is empty.
    struct BucketProbe {
      int slot = -1;
      typename layout_type::word_type word = 0;
      bool has_empty = false;
    };
    template <unsigned T, class Parent>  // (deduced from tiled_partition<T>(...) or thread_block_tile<T>)
    __device__ BucketProbe probe_bucket(const cg::thread_block_tile<T, Parent>& g, std::uint32_t bucket,
                                        K key) const {
      static_assert(BucketSize % T == 0, "a lookup tile divides the bucket");
      constexpr int per_lane = BucketSize / int(T);
      typename layout_type::word_type w[per_lane];
      layout.template load_words<per_lane>(
          std::uint64_t(bucket) * BucketSize + std::uint64_t(g.thread_rank()) * per_lane, w);
      int hit = -1;
      typename layout_type::word_type hit_word = 0;
      bool empty = false;
#pragma unroll
      for (int j = per_lane - 1; j >= 0; --j) {  // ends on the lane's first hit
        const K k = layout_type::key_of(w[j]);
        if (k == key) {
          hit = j;
          hit_word = w[j];
        }
        empty |= k == sentinels::empty;
      }
      BucketProbe probe;
      const unsigned lanes = g.ballot(hit >= 0);
      if (lanes) {
        const int owner = __ffs(lanes) - 1;
        probe.slot = owner * per_lane + g.shfl(hit, owner);
        probe.word = g.shfl(hit_word, owner);
      } else {
        probe.has_empty = g.any(empty);
      }
      return probe;
    }

    // The walk of every lookup: h0, h1, h2, stopping at the first bucket
    // holding the key or with an empty slot (the key never went further).
    // Slot of `key` (first copy in lookup order), or no_slot; *word_out gets
    // the slot's word from the bucket load.
    template <unsigned T, class Parent>
    __device__ std::uint64_t find_slot(const cg::thread_block_tile<T, Parent>& g, K key,
                                       typename layout_type::word_type* word_out = nullptr) const {
      if (!sentinels::is_valid(key)) return no_slot;
      for (int which = 0; which < 3; ++which) {
        const std::uint32_t bucket = hashes.bucket(which, key);
        const BucketProbe probe = probe_bucket(g, bucket, key);
        if (probe.slot >= 0) {
          if (word_out != nullptr) *word_out = probe.word;
          return std::uint64_t(bucket) * BucketSize + std::uint64_t(probe.slot);
        }
        if (probe.has_empty) return no_slot;
      }
      return no_slot;
    }
    // The value comes from the bucket load that found the key (hides
    // BucketedRefOps::find and contains, which take a tile of B).
    template <unsigned T, class Parent>
    __device__ bool find(const cg::thread_block_tile<T, Parent>& g, K key, V& value_out) const {
      typename layout_type::word_type word = 0;
      if (find_slot(g, key, &word) == no_slot) return false;
      value_out = layout_type::value_of(word);
      return true;
    }
    template <unsigned T, class Parent>
    __device__ bool contains(const cg::thread_block_tile<T, Parent>& g, K key) const {
      return find_slot(g, key) != no_slot;
    }

    // The insert without status recording (BucketedRefOps::insert records),
    // with a tile of any T lanes dividing B, each holding B/T slots of the
    // bucket it reads (the bulk insert uses InsertTile, insert_group_size).
    // The slot claimed is the bucket's first free one and the victim of a
    // full bucket the same whatever T.
    template <unsigned T, class Parent>
    __device__ Status place(const cg::thread_block_tile<T, Parent>& g, K key, V value) const {
      using word_type = typename layout_type::word_type;
      constexpr int per_lane = BucketSize / int(T);
      if (!sentinels::is_valid(key)) return Status(Status::invalid_key);
      if (check_duplicates && find_slot(g, key) != no_slot) return Status(Status::duplicate_key);
      const int lane = g.thread_rank();
      word_type pair = layout_type::pack(key, value);
      std::uint32_t bucket = hashes.bucket(0, key);
      for (std::uint32_t evictions = 0;; ++evictions) {
        const std::uint64_t mine = std::uint64_t(bucket) * BucketSize + std::uint64_t(lane) * per_lane;
        word_type seen[per_lane];
        layout.template load_words<per_lane>(mine, seen);
        while (true) {
          int first_free = -1;
          word_type free_word = 0;
#pragma unroll
          for (int j = per_lane - 1; j >= 0; --j) {
            if (!sentinels::is_valid(layout_type::key_of(seen[j]))) {
              first_free = j;
              free_word = seen[j];
            }
          }
          const unsigned free = g.ballot(first_free >= 0);
          if (!free) break;
          const int leader = __ffs(free) - 1;
          bool won = false;
          if (lane == leader) {
            won = detail::atomic_cas(layout.words + mine + first_free, free_word, pair) == free_word;
          }
          if (g.shfl(won, leader)) return Status();
          layout.template load_words<per_lane>(mine, seen);  // lost a race: read the bucket again
          // The winner may have been an insert of the same key.
          if (check_duplicates && evictions == 0) {
            bool same = false;
#pragma unroll
            for (int j = 0; j < per_lane; ++j) same |= layout_type::key_of(seen[j]) == key;
            if (g.any(same)) return Status(Status::duplicate_key);
          }
        }
        if (evictions == max_evictions) return Status(Status::table_full);
        // Full bucket: swap with a pseudo-random slot (a function of the pair
        // and the chain position, so chains do not repeat the same victim).
        const int victim = int(fmix64(pair + evictions) % BucketSize);
        const int victim_lane = victim / per_lane;
        word_type evicted = 0;
        if (lane == victim_lane) {
          evicted = word_type(atomicExch(reinterpret_cast<unsigned long long*>(
                                             layout.words + std::uint64_t(bucket) * BucketSize + victim),
                                         (unsigned long long)pair));
        }
        evicted = g.shfl(evicted, victim_lane);
        const K carried = layout_type::key_of(evicted);
        if (!sentinels::is_valid(carried)) return Status();  // the slot was freed meanwhile
        pair = evicted;
        const int was = bucket == hashes.bucket(0, carried) ? 0
                        : bucket == hashes.bucket(1, carried) ? 1 : 2;
        bucket = hashes.bucket((was + 1) % 3, carried);
      }
    }
  };

  BucketedCuckooTable(std::uint64_t min_capacity, CuckooOptions options, cudaStream_t stream)
      : Base(min_capacity, stream), options_(options) {}

  Ref ref() const {
    return Ref{{},
               storage_.layout(),
               ThreeBucketHashes<Hasher>(options_.seed, storage_.num_buckets()),
               options_.max_evictions,
               options_.unique_keys_checked,
               storage_.status_word()};
  }
  std::uint64_t seed() const { return options_.seed; }

  // insert (TableContainer) adds pairs; on table_full (see peek_status) the
  // table lost a pair: rebuild it with build().

  // Empties the table and inserts the pairs; on table_full retries from
  // empty with the next seeds (and capacity * capacity_growth). Synchronises.
  CuckooBuildResult build(const K* keys, const V* values, std::uint64_t n, cudaStream_t stream,
                          CuckooRetry retry = {}) {
    CuckooBuildResult result;
    for (result.attempts = 1;; ++result.attempts) {
      this->clear(stream);
      this->insert(keys, values, n, stream);
      result.status = this->pop_status(stream);
      result.seed = options_.seed;
      if (!result.status.has(Status::table_full) || result.attempts >= retry.max_attempts) {
        return result;
      }
      options_.seed += 1;
      if (retry.capacity_growth > 1.0) {
        storage_ = BucketedStorage<layout_type, BucketSize>(
            std::uint64_t(double(this->capacity()) * retry.capacity_growth) + 1, stream);
      }
    }
  }

 private:
  using Base::storage_;

  // Two groups inserting one key at once may both place it (each in its own
  // bucket): a checked bulk insert ends with the racing-copy pass.
  void after_bulk_insert(cudaStream_t stream) const {
    if (options_.unique_keys_checked) storage_.remove_racing_copies(ref(), stream);
  }

  CuckooOptions options_;
};

}  // namespace metawarp::tables
