#pragma once
// BucketedCuckooTable (BCHT): single value per key, buckets of B = 8, 16 or 32
// slots, three hash functions. Design after Awad et al., "Analyzing and
// Implementing GPU Hash Tables" (ALENEX 2023), sections 3.1 and 5.2; no code
// taken from it.
//
// A key lives in one of its buckets h0(k), h1(k), h2(k). An insert reads
// bucket h0 with a tile of B threads (one coalesced load) and CASes the first
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

template <class K, class V, int BucketSize = 16, class Hasher = MurmurHasher>
class BucketedCuckooTable
    : public BucketedHostApi<BucketedCuckooTable<K, V, BucketSize, Hasher>, K, V> {
 public:
  using key_type = K;
  using value_type = V;
  using layout_type = PackedLayout<K, V>;
  using group_type = cg::thread_block_tile<BucketSize>;
  using sentinels = KeySentinels<K>;
  static constexpr int group_size = BucketSize;
  static constexpr const char* name = "BucketedCuckooTable";

  // find / contains / erase / insert come from BucketedRefOps.
  struct Ref : BucketedRefOps<Ref, K, V, BucketSize> {
    using group_type = cg::thread_block_tile<BucketSize>;
    layout_type layout;
    ThreeBucketHashes<Hasher> hashes;
    std::uint32_t max_evictions = 0;
    bool check_duplicates = true;
    Status::bits_type* table_status = nullptr;

    // Slot of `key` (first copy in lookup order), or no_slot.
    __device__ std::uint64_t find_slot(const group_type& g, K key) const {
      if (!sentinels::is_valid(key)) return no_slot;
      const int lane = g.thread_rank();
      for (int which = 0; which < 3; ++which) {
        const std::uint64_t base = std::uint64_t(hashes.bucket(which, key)) * BucketSize;
        const K k = layout.load_key(base + lane);
        const unsigned hit = g.ballot(k == key);
        if (hit) return base + __ffs(hit) - 1;
        if (g.any(k == sentinels::empty)) return no_slot;  // the key never went further
      }
      return no_slot;
    }

    // find_slot's walk, with the value taken from the bucket load that found
    // the key (hides BucketedRefOps::find, which reads the slot again).
    __device__ bool find(const group_type& g, K key, V& value_out) const {
      if (!sentinels::is_valid(key)) return false;
      const int lane = g.thread_rank();
      for (int which = 0; which < 3; ++which) {
        const std::uint64_t base = std::uint64_t(hashes.bucket(which, key)) * BucketSize;
        const WindowVerdict verdict =
            probe_words<layout_type>(g, layout.load_word(base + lane), key, value_out);
        if (verdict != WindowVerdict::read_on) return verdict == WindowVerdict::found;
      }
      return false;
    }

    // The insert without status recording (BucketedRefOps::insert records).
    __device__ Status place(const group_type& g, K key, V value) const {
      using word_type = typename layout_type::word_type;
      if (!sentinels::is_valid(key)) return Status(Status::invalid_key);
      if (check_duplicates && find_slot(g, key) != no_slot) return Status(Status::duplicate_key);
      const int lane = g.thread_rank();
      word_type pair = layout_type::pack(key, value);
      std::uint32_t bucket = hashes.bucket(0, key);
      for (std::uint32_t evictions = 0;; ++evictions) {
        word_type* const words = layout.words + std::uint64_t(bucket) * BucketSize;
        word_type seen = detail::volatile_load(words + lane);
        while (true) {
          const unsigned free = g.ballot(!sentinels::is_valid(layout_type::key_of(seen)));
          if (!free) break;
          const int leader = __ffs(free) - 1;
          bool won = false;
          if (lane == leader) won = detail::atomic_cas(words + lane, seen, pair) == seen;
          if (g.shfl(won, leader)) return Status();
          seen = detail::volatile_load(words + lane);  // lost a race: read the bucket again
          // The winner may have been an insert of the same key.
          if (check_duplicates && evictions == 0 &&
              g.any(layout_type::key_of(seen) == key)) {
            return Status(Status::duplicate_key);
          }
        }
        if (evictions == max_evictions) return Status(Status::table_full);
        // Full bucket: swap with a pseudo-random slot (a function of the pair
        // and the chain position, so chains do not repeat the same victim).
        const int victim = int(fmix64(pair + evictions) % BucketSize);
        word_type evicted = 0;
        if (lane == victim) {
          evicted = word_type(atomicExch(reinterpret_cast<unsigned long long*>(words + lane),
                                         (unsigned long long)pair));
        }
        evicted = g.shfl(evicted, victim);
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
      : options_(options), storage_(min_capacity, stream) {}

  Ref ref() const {
    return Ref{{},
               storage_.layout(),
               ThreeBucketHashes<Hasher>(options_.seed, storage_.num_buckets()),
               options_.max_evictions,
               options_.unique_keys_checked,
               storage_.status_word()};
  }
  std::uint64_t seed() const { return options_.seed; }

  // insert (BucketedHostApi) adds pairs; on table_full (see peek_status) the
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
  friend class BucketedHostApi<BucketedCuckooTable, K, V>;
  const CuckooOptions& options() const { return options_; }
  const BucketedStorage<layout_type, BucketSize>& storage() const { return storage_; }
  BucketedStorage<layout_type, BucketSize>& storage() { return storage_; }

  CuckooOptions options_;
  BucketedStorage<layout_type, BucketSize> storage_;
};

}  // namespace metawarp::tables
