#pragma once
// 2-bit packed k-mers (k <= 32): masks, reverse complement, canonical form.
// The first base of a k-mer sits in the highest-order used bits.
#include <cstdint>

#include "metawarp/config.hpp"
#include "metawarp/sketch/types.hpp"

namespace metawarp::sketch {

// Bits used by a k-mer of length k (k = 32 uses all 64 bits; a shift by 64 is UB).
METAWARP_HD_INLINE kmer_t kmer_mask(std::uint32_t k) {
  return k >= 32 ? ~kmer_t(0) : ((kmer_t(1) << (2 * k)) - 1);
}

// Reverse complement: complement every base (x ^ 3 per 2-bit group, i.e. ~x),
// reverse the order of the 32 groups, then drop the 32-k unused ones.
METAWARP_HD_INLINE kmer_t reverse_complement(kmer_t x, std::uint32_t k) {
  x = ~x;
  x = ((x >> 2) & 0x3333333333333333ull) | ((x & 0x3333333333333333ull) << 2);
  x = ((x >> 4) & 0x0F0F0F0F0F0F0F0Full) | ((x & 0x0F0F0F0F0F0F0F0Full) << 4);
  x = ((x >> 8) & 0x00FF00FF00FF00FFull) | ((x & 0x00FF00FF00FF00FFull) << 8);
  x = ((x >> 16) & 0x0000FFFF0000FFFFull) | ((x & 0x0000FFFF0000FFFFull) << 16);
  x = (x >> 32) | (x << 32);
  return x >> (2 * (32 - k));
}

METAWARP_HD_INLINE kmer_t canonical_kmer(kmer_t x, std::uint32_t k) {
  const kmer_t rc = reverse_complement(x, k);
  return rc < x ? rc : x;
}

}  // namespace metawarp::sketch
