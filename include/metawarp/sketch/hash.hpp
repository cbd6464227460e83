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

}  // namespace metawarp::sketch
