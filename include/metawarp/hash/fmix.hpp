#pragma once
// MurmurHash3's finalizers, the one home of the bit mixers that the hash
// tables (hashers), the k-mer hash (part of the database format) and the file
// checksum are built on.
#include <cstdint>

#include "metawarp/config.hpp"

namespace metawarp::hash {

// The 32-bit finalizer: a bijection on 32 bits with full avalanche.
METAWARP_HD_INLINE constexpr std::uint32_t fmix32(std::uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

// The 64-bit finalizer's multipliers, in the order applied (odd: invertible
// modulo 2^64, so a test can run fmix64 backwards).
inline constexpr std::uint64_t fmix64_multiplier1 = 0xff51afd7ed558ccdull;
inline constexpr std::uint64_t fmix64_multiplier2 = 0xc4ceb9fe1a85ec53ull;

// The 64-bit finalizer: a bijection on 64 bits; every output bit depends on
// every input bit.
METAWARP_HD_INLINE constexpr std::uint64_t fmix64(std::uint64_t h) {
  h ^= h >> 33;
  h *= fmix64_multiplier1;
  h ^= h >> 33;
  h *= fmix64_multiplier2;
  h ^= h >> 33;
  return h;
}

}  // namespace metawarp::hash
