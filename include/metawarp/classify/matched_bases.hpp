#pragma once
// The matched-bases rule (issue 26, docs/accuracy.md "The matched-bases rule
// in the code"), shared unchanged by every query path (CPU, part walks, MPI
// ranks, GPU): no std containers, no allocation, integers only.
//
// With content-defined sampling a read of a genome shares long stretches of
// k-mers with it, while a read of an unknown genome reaches a candidate only
// through k-mers it shares by chance, which are scattered and few. A call
// stands only when the read's k-mers whose feature hits the best candidate's
// window range cover at least m read bases (the union of their [pos, pos + k)
// intervals; mate 2's positions follow mate 1's bases), m the smallest
// number of bases a chance match reaches with probability <= rate per read:
// (L - m + 1) * 2G * 4^-m <= rate, L the read's bases (both mates), G the
// database's reference bases (each strand: 2G places to match by chance).
// A feature's position is the start of the k-mer at which its window's sketch
// kept it (sketch_window_positions, in the pass that samples the read).
#include <cstdint>

#include "metawarp/config.hpp"
#include "metawarp/sketch/sketch.hpp"

namespace metawarp::classify {

// The expected chance calls per read that the automatic minimum allows, as
// one in this many reads: 1e-6. One chance call in a million reads is far
// below the rate of a real sample's misclassified reads (docs/accuracy.md:
// m is then 28 for a read of 150 bases and 29 for a pair of 2 x 150 on the
// 260 Mbp refs138, and no shuffled read or mate is classified), while a read
// of a genome in the database matches over most of its length.
inline constexpr std::uint32_t chance_calls_one_in = 1000000;

// The bases covered by the intervals [positions[i], positions[i] + k),
// positions sorted ascending (duplicates allowed): overlapping and adjacent
// intervals are counted once.
METAWARP_HD_INLINE std::uint64_t union_length(const std::uint32_t* positions, std::uint32_t n,
                                              std::uint32_t k) {
  std::uint64_t covered = 0;
  std::uint64_t free_from = 0;  // one past the covered bases so far
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint64_t begin = positions[i], end = begin + k;  // end >= free_from: sorted
    covered += begin >= free_from ? k : end - free_from;
    free_from = end;
  }
  return covered;
}

// The smallest m with (read_bases - m + 1) * 2 * reference_bases * one_in
// <= 4^m: the least matched bases a call needs. Exact in integers: the
// product without its factor 2 is below 2^32 * 2^32 * 2^64 = 2^128, and it is
// compared with 4^m / 2 = 2^(2m - 1), which for m >= 65 exceeds any such
// product. At most read_bases + 1 (no chance match is longer than the read);
// 0 with no reference bases or one_in 0 (the rule is off).
METAWARP_HD_INLINE std::uint32_t min_matched_bases(std::uint32_t read_bases,
                                                   std::uint64_t reference_bases,
                                                   std::uint32_t one_in) {
  using u128 = unsigned __int128;
  if (reference_bases == 0 || one_in == 0) return 0;
  const u128 per_place = u128(reference_bases) * one_in;  // < 2^96
  for (std::uint32_t m = 1; m <= read_bases; ++m) {
    if (m >= 65) return m;
    const u128 chance = u128(read_bases - m + 1) * per_place;  // < 2^128
    if (chance <= (u128(1) << (2 * m - 1))) return m;
  }
  return read_bases == 0xffffffffu ? read_bases : read_bases + 1;
}

// Whether a feature's location list (sorted by (target, window)) holds a
// location of `target` in windows [first_window, last_window].
METAWARP_HD_INLINE bool list_meets(const sketch::Location* list, std::uint32_t n,
                                   sketch::target_id_t target, sketch::window_id_t first_window,
                                   sketch::window_id_t last_window) {
  std::uint32_t lo = 0, hi = n;  // the first location at or after (target, first_window)
  while (lo < hi) {
    const std::uint32_t mid = (lo + hi) / 2;
    const sketch::Location& l = list[mid];
    if (l.target < target || (l.target == target && l.window < first_window)) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && list[lo].target == target && list[lo].window <= last_window;
}

}  // namespace metawarp::classify
