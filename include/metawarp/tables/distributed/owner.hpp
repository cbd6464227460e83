#pragma once
// Owner policies of a distributed table: which shard holds a key. Every key
// lives on exactly one shard, so a lookup asks one shard and a multi-value
// retrieval never merges results from several. Both policies are plain
// host/device functors (shard = owner(key)), copied into the multisplit kernel.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "metawarp/config.hpp"
#include "metawarp/tables/hashers.hpp"

namespace metawarp::tables::distributed {

// Upper bound on shards (devices x shards per device): sizes the multisplit's
// shared memory and RangeOwner's inline bounds (kernel parameters).
inline constexpr unsigned max_shards = 64;

inline void check_shard_count(unsigned shards) {
  if (shards == 0 || shards > max_shards) {
    throw std::invalid_argument("a distributed table needs 1 to " + std::to_string(max_shards) +
                                " shards, not " + std::to_string(shards));
  }
}

// Default: hash(key) mod shards. The hash is xxHash-style, a different family
// from the tables' Murmur hashing, so the keys of one shard (all with the same
// residue of the owner hash) still spread evenly over that shard's table.
struct HashOwner {
  std::uint32_t shards = 1;
  std::uint64_t seed_add = 0x61c8864680b583ebull;

  HashOwner() = default;
  explicit HashOwner(unsigned num_shards, std::uint64_t seed = 0)
      : shards(num_shards), seed_add(seed * 0x27d4eb2f165667c5ull + 0x61c8864680b583ebull) {
    check_shard_count(num_shards);
  }
  METAWARP_HD_INLINE std::uint32_t operator()(std::uint64_t key) const {
    return std::uint32_t(xxmix64(key + seed_add) % shards);
  }
  METAWARP_HD_INLINE std::uint32_t num_shards() const { return shards; }
};

// Contiguous key ranges: shard s owns [first[s], first[s + 1]) (first[0] = 0,
// the last shard owns everything above its first key). Useful when the keys
// are already well mixed (features are hashes) and a shard should be a
// contiguous piece of the sorted key space, e.g. an index::FeatureRange.
struct RangeOwner {
  std::uint32_t shards = 1;
  std::uint64_t first[max_shards] = {};  // ascending; first[0] == 0

  RangeOwner() = default;
  // Explicit range starts: first_keys[0] must be 0, strictly ascending.
  explicit RangeOwner(const std::vector<std::uint64_t>& first_keys)
      : shards(std::uint32_t(first_keys.size())) {
    check_shard_count(shards);
    if (first_keys[0] != 0) throw std::invalid_argument("the first key range must start at 0");
    for (std::size_t s = 1; s < first_keys.size(); ++s) {
      if (first_keys[s] <= first_keys[s - 1]) {
        throw std::invalid_argument("key range starts must be strictly ascending (range " +
                                    std::to_string(s) + ")");
      }
    }
    std::copy(first_keys.begin(), first_keys.end(), first);
  }
  // `num_shards` equal ranges of [0, key_end) (key_end = 2^32 for 32-bit
  // keys; 0 means 2^64); keys at or past key_end belong to the last shard.
  static RangeOwner even(unsigned num_shards, std::uint64_t key_end) {
    check_shard_count(num_shards);
    const unsigned __int128 end = key_end == 0 ? (unsigned __int128)1 << 64 : key_end;
    if (end < num_shards) throw std::invalid_argument("fewer keys than shards in the key range");
    std::vector<std::uint64_t> starts(num_shards);
    for (unsigned s = 0; s < num_shards; ++s) starts[s] = std::uint64_t(end * s / num_shards);
    return RangeOwner(starts);
  }
  METAWARP_HD_INLINE std::uint32_t operator()(std::uint64_t key) const {
    std::uint32_t lo = 0, hi = shards;  // invariant: first[lo] <= key, answer in [lo, hi)
    while (hi - lo > 1) {
      const std::uint32_t mid = (lo + hi) / 2;
      if (first[mid] <= key) lo = mid; else hi = mid;
    }
    return lo;
  }
  METAWARP_HD_INLINE std::uint32_t num_shards() const { return shards; }
};

}  // namespace metawarp::tables::distributed
