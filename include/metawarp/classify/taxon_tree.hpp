#pragma once
// The taxonomy as plain arrays, and the taxon of a feature: shared unchanged
// by the CPU and GPU query paths (no allocation, no std containers).
//
// Nodes are numbered 1..n (node 0 is "no taxon", so a zero-initialised array
// means "none" everywhere, as taxid 0 does): parent[v] is v's parent (a root
// is its own parent), depth[v] its distance to its root. The arrays come from
// a validated taxonomy (no cycles), so every walk up ends.
#include <cstdint>

#include "metawarp/config.hpp"
#include "metawarp/sketch/types.hpp"

namespace metawarp::classify {

using taxon_node_t = std::uint32_t;
inline constexpr taxon_node_t no_node = 0;

struct TaxonTree {
  const taxon_node_t* parent = nullptr;  // n + 1 entries, parent[0] = 0
  const std::uint32_t* depth = nullptr;  // n + 1 entries, depth[0] = 0
};

// Lowest common ancestor of a and b. No node is neutral: lca(a, 0) == a.
// Taxa of different trees (a taxonomy with several roots) have none: 0.
METAWARP_HD_INLINE taxon_node_t lca(const TaxonTree& tree, taxon_node_t a, taxon_node_t b) {
  if (a == no_node) return b;
  if (b == no_node || a == b) return a;
  while (tree.depth[a] > tree.depth[b]) a = tree.parent[a];
  while (tree.depth[b] > tree.depth[a]) b = tree.parent[b];
  while (a != b) {
    if (tree.parent[a] == a) return no_node;  // both are (different) roots
    a = tree.parent[a];
    b = tree.parent[b];
  }
  return a;
}

// True when `ancestor` is `v` or one of its ancestors.
METAWARP_HD_INLINE bool in_clade(const TaxonTree& tree, taxon_node_t v, taxon_node_t ancestor) {
  if (v == no_node || ancestor == no_node) return false;
  while (tree.depth[v] > tree.depth[ancestor]) v = tree.parent[v];
  return v == ancestor;
}

// The taxon of a feature: the lowest common ancestor of the taxa of the
// targets its n locations lie in (target_of(i): location i's target;
// target_node[t]: target t's taxon, 0 for an unmapped target, which is
// skipped). 0 when no location has a taxon, or when its taxa have no common
// ancestor. A pure function of the feature's whole location list, so every
// executor and every split of the database by feature range gives each
// feature the same taxon. Locations sorted by target (the database's order)
// let a target's run cost one step. The GPU calls it over its 32-bit window
// ids, the host over sketch::Location lists (feature_taxon below).
template <class TargetOf>
METAWARP_HD_INLINE taxon_node_t feature_taxon_of(std::uint32_t n, TargetOf target_of,
                                                 const taxon_node_t* target_node,
                                                 const TaxonTree& tree) {
  taxon_node_t result = no_node;
  bool any = false;
  std::uint32_t previous = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t target = target_of(i);
    if (i > 0 && target == previous) continue;
    previous = target;
    const taxon_node_t t = target_node[target];
    if (t == no_node) continue;
    if (!any) {
      result = t;
      any = true;
      continue;
    }
    result = lca(tree, result, t);
    if (result == no_node) return no_node;  // different trees: no common taxon
  }
  return result;
}

METAWARP_HD_INLINE taxon_node_t feature_taxon(const sketch::Location* locations, std::uint32_t n,
                                              const taxon_node_t* target_node,
                                              const TaxonTree& tree) {
  return feature_taxon_of(
      n, [locations](std::uint32_t i) { return locations[i].target; }, target_node, tree);
}

}  // namespace metawarp::classify
