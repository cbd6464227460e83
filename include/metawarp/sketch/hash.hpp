#pragma once
// The k-mer -> feature hash.
#include <cstdint>

#include "metawarp/config.hpp"
#include "metawarp/sketch/types.hpp"

namespace metawarp::sketch {

// MurmurHash3's 64-bit finalizer (fmix64): a bijection on 64 bits with full
// avalanche, so every output bit depends on every input bit.
METAWARP_HD_INLINE std::uint64_t fmix64(std::uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

// Feature of a canonical k-mer: the HIGH 32 bits of fmix64. The high half has
// passed through both multiplications, so it is the better-mixed half; the
// sketch keeps the smallest values, so the hash must be uniform over 32 bits.
// Part of the database format: changing it invalidates existing databases.
METAWARP_HD_INLINE feature_t hash_kmer(kmer_t canonical) {
  return feature_t(fmix64(canonical) >> 32);
}

}  // namespace metawarp::sketch
