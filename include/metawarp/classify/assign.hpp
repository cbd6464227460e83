#pragma once
// From the top candidates of a read to one taxon, shared unchanged by the CPU
// and GPU query paths (fixed arrays, no allocation).
//
// Rules, in order:
//  1. unclassified if there is no candidate or the best has < hit_min hits,
//     or if the best's matched bases are fewer than needed (matched_bases.hpp);
//  2. the candidates taking part are the best and every other candidate with
//     hits >= best.hits - hit_diff;
//  3. their lowest common ancestor on ranked lineages (TargetLineage), the
//     target's own taxon being the lowest level ("sequence");
//  4. an assignment below `lowest` is lifted to its ancestor at `lowest` (or
//     the next ranked ancestor above it); one above `highest` is unclassified.
#include <cstdint>

#include "metawarp/classify/candidates.hpp"
#include "metawarp/config.hpp"

namespace metawarp::classify {

using taxid_t = std::uint32_t;   // same as taxonomy::taxid_t
inline constexpr taxid_t unclassified_taxon = 0;

// Levels of a ranked lineage, low to high; the same order and count as
// taxonomy::CanonicalRank (sequence, subspecies, species, genus, family,
// order, class, phylum, kingdom, domain, root).
inline constexpr std::uint32_t lineage_levels = 11;
inline constexpr std::uint32_t level_sequence = 0;
inline constexpr std::uint32_t level_root = lineage_levels - 1;

// ids[0] is the target's own taxon (whatever its NCBI rank); ids[l] for l >= 1
// is its ancestor at canonical level l, or 0 where the lineage has none.
// All zero for a target without a taxon.
struct TargetLineage {
  taxid_t ids[lineage_levels] = {};
};

struct AssignParams {
  std::uint32_t hit_min = 1;
  std::uint32_t hit_diff = 0;
  std::uint32_t lowest = level_sequence;  // lift assignments below this level
  std::uint32_t highest = level_root;     // drop assignments above this level
};

// The matched-bases rule's numbers for a read (matched_bases.hpp): the
// bases the best candidate's k-mers cover and the least a call needs
// (0: the rule is off, as for minhash-window databases).
struct MatchedBases {
  std::uint32_t matched = 0;
  std::uint32_t needed = 0;
};

struct Assignment {
  taxid_t taxid = unclassified_taxon;
  std::uint32_t best_hits = 0;
  std::uint32_t candidates_used = 0;  // candidates that took part in the LCA
};

// Lowest level at which all lineages of top[0..n) name the same taxon, or
// lineage_levels when they share none.
METAWARP_HD_INLINE std::uint32_t common_level(const Candidate* top, std::uint32_t n,
                                              const TargetLineage* lineages) {
  for (std::uint32_t level = 0; level < lineage_levels; ++level) {
    const taxid_t id = lineages[top[0].target].ids[level];
    if (id == unclassified_taxon) continue;
    const Candidate* other = top + 1;
    while (other < top + n && lineages[other->target].ids[level] == id) ++other;
    if (other == top + n) return level;
  }
  return lineage_levels;
}

// Applies the rank limits to the taxon at `level` of `lineage`.
METAWARP_HD_INLINE taxid_t limit_level(const TargetLineage& lineage, std::uint32_t level,
                                       const AssignParams& p) {
  const taxid_t id = lineage.ids[level];
  // Where the taxon really sits: the level at which it reappears above, if it
  // is a ranked taxon; otherwise (a "no rank" or strain-like leaf) just below
  // its lowest ranked ancestor, written as that ancestor's level minus a half
  // (kept doubled to stay in integers).
  std::uint32_t doubled = 2 * level;
  if (level == level_sequence) {
    doubled = 2 * lineage_levels;  // no ranked ancestor at all: treat as top
    for (std::uint32_t l = 1; l < lineage_levels; ++l) {
      if (lineage.ids[l] == id) { doubled = 2 * l; break; }
      if (lineage.ids[l] != unclassified_taxon) { doubled = 2 * l - 1; break; }
    }
  }
  if (doubled < 2 * p.lowest) {
    for (std::uint32_t l = p.lowest; l < lineage_levels; ++l) {
      if (lineage.ids[l] != unclassified_taxon) {
        return l <= p.highest ? lineage.ids[l] : unclassified_taxon;
      }
    }
    return unclassified_taxon;
  }
  if (doubled > 2 * p.highest) return unclassified_taxon;
  return id;
}

// top[0..n) sorted best first (as top_candidates writes them).
METAWARP_HD_INLINE Assignment assign(const Candidate* top, std::uint32_t n,
                                     const TargetLineage* lineages, const AssignParams& p,
                                     MatchedBases match = {}) {
  Assignment result;
  if (n == 0) return result;
  result.best_hits = top[0].hits;
  if (top[0].hits < p.hit_min || top[0].hits == 0) return result;
  if (match.matched < match.needed) return result;
  const std::uint32_t floor = top[0].hits > p.hit_diff ? top[0].hits - p.hit_diff : 0;
  const Candidate* end = top + 1;
  while (end < top + n && end->hits >= floor) ++end;
  const std::uint32_t used = std::uint32_t(end - top);
  result.candidates_used = used;
  const std::uint32_t level = common_level(top, used, lineages);
  if (level == lineage_levels) return result;
  result.taxid = limit_level(lineages[top[0].target], level, p);
  return result;
}

}  // namespace metawarp::classify
