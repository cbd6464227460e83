#pragma once
// The k-mer -> feature hash.
#include <cstdint>

#include "metawarp/config.hpp"
#include "metawarp/hash/fmix.hpp"
#include "metawarp/sketch/types.hpp"

namespace metawarp::sketch {

// Feature of a canonical k-mer: the HIGH 32 bits of fmix64. The high half has
// passed through both multiplications, so it is the better-mixed half; the
// sketch keeps the smallest values, so the hash must be uniform over 32 bits.
// Part of the database format: changing it invalidates existing databases.
METAWARP_HD_INLINE feature_t hash_kmer(kmer_t canonical) {
  return feature_t(hash::fmix64(canonical) >> 32);
}

// Content-defined sampling (sampling.hpp) decides on the high half, hash_kmer
// (its order), and names a kept k-mer by the LOW half: the kept k-mers'
// high halves crowd [0, 2^32 / c) (FracMinHash) or the low end (minimizers),
// so as features they would collide by chance c times as often as 32
// independent bits do (a shuffled read's features would hit the database).
// Also part of the database format.
METAWARP_HD_INLINE feature_t sampled_feature(kmer_t canonical) {
  return feature_t(hash::fmix64(canonical));
}

}  // namespace metawarp::sketch
