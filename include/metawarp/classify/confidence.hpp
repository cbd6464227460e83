#pragma once
// --confidence F: how much of a read's evidence must lie in the clade it is
// assigned to. Shared unchanged by every query path (no allocation).
//
// The evidence of a read is its features (every window sketch entry of both
// mates, a feature as often as the read has it), each carrying its feature
// taxon (taxon_tree.hpp; 0 when the feature is not in the database or its
// locations have no taxon). A taxon's clade holds the features whose taxon is
// it or lies below it. The rule, after classify::assign:
//  - the candidate taxa are the assigned taxon and the ranked taxa above it
//    on the lineage assign used (the best candidate's TargetLineage, levels
//    from the assigned one up to the root: the taxa metawarp names anywhere);
//  - the read goes to the lowest of them whose clade holds at least F of ALL
//    its features (count * 10^6 >= F_millionths * features: integers, so the
//    CPU and GPU compare the same numbers, with no rounding of F * features);
//  - unclassified when not even the root does (features that are not in the
//    database count in the total and in no clade, as Kraken2 counts k-mers);
//  - the rank limits (--lowest, --highest) apply to the result as to any call.
// F = 0 keeps every call as assign made it.
#include <cstdint>

#include "metawarp/classify/assign.hpp"
#include "metawarp/classify/taxon_tree.hpp"
#include "metawarp/config.hpp"

namespace metawarp::classify {

inline constexpr std::uint32_t confidence_scale = 1000000;  // F in millionths

// `count` consecutive features of a read with feature taxon `taxon`.
struct EvidenceRun {
  std::uint32_t taxon = 0;
  std::uint32_t count = 0;
};

// The lowest lineage level in [from, lineage_levels) whose taxon (nodes.ids:
// the lineage as taxon_node_t, 0 where absent) holds at least F of the
// evidence runs' features, or lineage_levels when none does.
METAWARP_HD_INLINE std::uint32_t confident_level(const TargetLineage& nodes, std::uint32_t from,
                                                 const EvidenceRun* runs, std::uint32_t n,
                                                 std::uint32_t confidence_millionths,
                                                 const TaxonTree& tree) {
  // in_level[l]: features whose lowest enclosing lineage taxon is at level l.
  std::uint64_t in_level[lineage_levels] = {};
  std::uint64_t total = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    total += runs[i].count;
    // Walk up from the feature's taxon; the first lineage taxon met is the
    // lowest one whose clade holds it (the lineage is one chain).
    for (taxon_node_t v = runs[i].taxon; v != no_node; v = tree.parent[v]) {
      std::uint32_t level = from;
      while (level < lineage_levels && nodes.ids[level] != v) ++level;
      if (level < lineage_levels) {
        in_level[level] += runs[i].count;
        break;
      }
      if (tree.parent[v] == v) break;  // a root not on the lineage
    }
  }
  const std::uint64_t needed = std::uint64_t(confidence_millionths) * total;
  std::uint64_t clade = 0;
  for (std::uint32_t level = from; level < lineage_levels; ++level) {
    clade += in_level[level];
    if (nodes.ids[level] == no_node) continue;
    if (clade * confidence_scale >= needed) return level;
  }
  return lineage_levels;
}

// The call with --confidence applied to `assigned` (assign's result for the
// read, whose best candidate has lineage `taxa`, the same lineage as taxon
// nodes in `nodes`).
METAWARP_HD_INLINE taxid_t confident_taxon(taxid_t assigned, const TargetLineage& taxa,
                                           const TargetLineage& nodes, const EvidenceRun* runs,
                                           std::uint32_t n, std::uint32_t confidence_millionths,
                                           const TaxonTree& tree, const AssignParams& p) {
  if (assigned == unclassified_taxon || confidence_millionths == 0) return assigned;
  std::uint32_t from = 0;
  while (from < lineage_levels && taxa.ids[from] != assigned) ++from;
  if (from == lineage_levels) return unclassified_taxon;  // not on the lineage: cannot happen
  const std::uint32_t level = confident_level(nodes, from, runs, n, confidence_millionths, tree);
  if (level == lineage_levels) return unclassified_taxon;
  if (level == from) return assigned;
  return limit_level(taxa, level, p);
}

}  // namespace metawarp::classify
