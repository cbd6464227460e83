#pragma once
// Seedable hash functions mapping a key (up to 64 bits) to 64 well-mixed
// bits. The probing schemes take different bit ranges of this one hash for
// the start window and the step, so both halves must be good.
#include <cstdint>

#include "metawarp/config.hpp"
#include "metawarp/hash/fmix.hpp"

namespace metawarp::tables {

// MurmurHash3's finalizers (metawarp/hash/fmix.hpp), also the tables' own.
using hash::fmix32;
using hash::fmix64;

// xxHash64-style avalanche after a multiply by a large odd constant:
// a different family from Murmur, useful as an independent second hasher.
METAWARP_HD_INLINE constexpr std::uint64_t xxmix64(std::uint64_t h) {
  h *= 0x9e3779b185ebca87ull;  // xxHash PRIME64_1
  h ^= h >> 33;
  h *= 0xc2b2ae3d27d4eb4full;  // PRIME64_2
  h ^= h >> 29;
  h *= 0x165667b19e3779f9ull;  // PRIME64_3
  h ^= h >> 32;
  return h;
}

// fmix64 of (key xor seed-derived constant). The seed is mixed first so that
// seeds 0,1,2... give unrelated functions, not shifted ones.
struct MurmurHasher {
  std::uint64_t seed_mix = fmix64(0x243f6a8885a308d3ull);
  MurmurHasher() = default;
  METAWARP_HD explicit MurmurHasher(std::uint64_t seed)
      : seed_mix(fmix64(seed ^ 0x243f6a8885a308d3ull)) {}
  METAWARP_HD_INLINE std::uint64_t operator()(std::uint64_t key) const {
    return fmix64(key ^ seed_mix);
  }
};

// Two independent fmix32 rounds (different seeds) give 64 bits from 32-bit
// arithmetic only; cheaper where 64-bit multiplies are slow.
struct Murmur32Hasher {
  std::uint32_t seed_lo = 0x9e3779b9u;
  std::uint32_t seed_hi = 0x7f4a7c15u;
  Murmur32Hasher() = default;
  METAWARP_HD explicit Murmur32Hasher(std::uint64_t seed)
      : seed_lo(fmix32(std::uint32_t(seed) ^ 0x9e3779b9u)),
        seed_hi(fmix32(std::uint32_t(seed >> 32) ^ 0x7f4a7c15u ^ std::uint32_t(seed))) {}
  METAWARP_HD_INLINE std::uint64_t operator()(std::uint64_t key) const {
    const std::uint32_t folded = std::uint32_t(key) ^ std::uint32_t(key >> 32) * 0x27d4eb2fu;
    return (std::uint64_t(fmix32(folded ^ seed_hi)) << 32) | fmix32(folded ^ seed_lo);
  }
};

// xxHash-style mixer of (key + seed * odd constant).
struct XxHasher {
  std::uint64_t seed_add = 0x27d4eb2f165667c5ull;
  XxHasher() = default;
  METAWARP_HD explicit XxHasher(std::uint64_t seed)
      : seed_add(seed * 0x27d4eb2f165667c5ull + 0x165667b19e3779f9ull) {}
  METAWARP_HD_INLINE std::uint64_t operator()(std::uint64_t key) const {
    return xxmix64(key + seed_add);
  }
};

}  // namespace metawarp::tables
