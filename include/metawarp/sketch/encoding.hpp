#pragma once
// 2-bit nucleotide encoding shared by host and device code.
#include <cstdint>

#include "metawarp/config.hpp"

namespace metawarp::sketch {

// A=0, C=1, G=2, T=3 (either case). Complement is 3 - code (= code ^ 3).
inline constexpr std::uint8_t invalid_base = 4;

// Anything other than ACGT/acgt (N, IUPAC codes, gaps, ...) is invalid_base;
// k-mers containing such a base are skipped by the sketcher.
METAWARP_HD_INLINE std::uint8_t encode_base(char c) {
  switch (c) {
    case 'A': case 'a': return 0;
    case 'C': case 'c': return 1;
    case 'G': case 'g': return 2;
    case 'T': case 't': return 3;
    default: return invalid_base;
  }
}

// The complementary base, as text: the case kept, N for anything that is not
// ACGT/acgt (so the other strand of a read has the same invalid positions).
METAWARP_HD_INLINE char complement_base(char c) {
  switch (c) {
    case 'A': return 'T';
    case 'C': return 'G';
    case 'G': return 'C';
    case 'T': return 'A';
    case 'a': return 't';
    case 'c': return 'g';
    case 'g': return 'c';
    case 't': return 'a';
    default: return 'N';
  }
}

}  // namespace metawarp::sketch
