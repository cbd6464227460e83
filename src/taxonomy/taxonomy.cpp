// Queries on a built Taxonomy: merged ids, lineages, ranked lineages, LCA,
// subsets. Construction guarantees every parent chain reaches a root in
// depth_ steps, so each walk here is bounded by the tree's depth.
#include "taxonomy/taxonomy.hpp"

#include <algorithm>

#include "taxonomy/taxonomy_origin.hpp"

namespace metawarp::taxonomy {

std::uint32_t Taxonomy::resolved_position(taxid_t id) const {
  std::uint32_t pos = position_of(id);
  // merged.dmp is flat in NCBI releases, but a chain (a -> b, b -> c) may
  // arise from mixing releases; at most one step per entry, so no loop.
  for (std::size_t step = 0; pos == npos && step <= merged_.size(); ++step) {
    const auto it = std::lower_bound(merged_.begin(), merged_.end(),
                                     std::pair<taxid_t, taxid_t>{id, no_taxon});
    if (it == merged_.end() || it->first != id) return npos;
    id = it->second;
    pos = position_of(id);
  }
  return pos;
}

taxid_t Taxonomy::resolve(taxid_t id) const {
  const auto pos = resolved_position(id);
  return pos == npos ? no_taxon : nodes_[pos].id;
}

const Node* Taxonomy::find(taxid_t id) const {
  const auto pos = resolved_position(id);
  return pos == npos ? nullptr : &nodes_[pos];
}

std::vector<taxid_t> Taxonomy::lineage(taxid_t id) const {
  std::vector<taxid_t> ids;
  std::uint32_t pos = resolved_position(id);
  if (pos == npos) return ids;
  ids.reserve(depth_[pos] + 1);
  for (;;) {
    ids.push_back(nodes_[pos].id);
    if (parent_pos_[pos] == pos) break;
    pos = parent_pos_[pos];
  }
  return ids;
}

RankedLineage Taxonomy::ranked_lineage(taxid_t id) const {
  RankedLineage ranked;
  std::uint32_t pos = resolved_position(id);
  if (pos == npos) return ranked;
  for (;;) {
    const Node& node = nodes_[pos];
    const auto canonical = canonical_rank_of(node.rank);
    // The root level is always the tree's root (NCBI's root has "no rank";
    // "cellular root" nodes below it must not split bacteria from viruses),
    // and the sequence level belongs to the caller.
    if (canonical && *canonical != CanonicalRank::root &&
        *canonical != CanonicalRank::sequence) {
      auto& slot = ranked.ids[std::size_t(*canonical)];
      if (slot == no_taxon) slot = node.id;
    }
    if (parent_pos_[pos] == pos) {
      ranked.ids[std::size_t(CanonicalRank::root)] = node.id;
      break;
    }
    pos = parent_pos_[pos];
  }
  return ranked;
}

taxid_t Taxonomy::lca(taxid_t a, taxid_t b) const {
  std::uint32_t pa = resolved_position(a);
  std::uint32_t pb = resolved_position(b);
  if (pa == npos) return pb == npos ? no_taxon : nodes_[pb].id;
  if (pb == npos) return nodes_[pa].id;
  while (depth_[pa] > depth_[pb]) pa = parent_pos_[pa];
  while (depth_[pb] > depth_[pa]) pb = parent_pos_[pb];
  while (pa != pb) {  // at the latest both reach the one root together
    pa = parent_pos_[pa];
    pb = parent_pos_[pb];
  }
  return nodes_[pa].id;
}

Taxonomy Taxonomy::subset_with_ancestors(std::span<const taxid_t> keep) const {
  std::vector<char> kept(nodes_.size(), 0);
  for (const taxid_t id : keep) {
    // Stop at the first node already kept: its ancestors are kept too.
    for (std::uint32_t pos = resolved_position(id); pos != npos && !kept[pos];) {
      kept[pos] = 1;
      if (parent_pos_[pos] == pos) break;
      pos = parent_pos_[pos];
    }
  }
  std::vector<Node> nodes;
  for (std::size_t pos = 0; pos < nodes_.size(); ++pos)
    if (kept[pos]) nodes.push_back(nodes_[pos]);
  std::vector<std::pair<taxid_t, taxid_t>> merged;
  for (const auto& [old_id, new_id] : merged_) {
    const std::uint32_t pos = resolved_position(old_id);
    // Store the final target, so the subset's entries need no chain.
    if (pos != npos && kept[pos] && nodes_[pos].id != old_id)
      merged.emplace_back(old_id, nodes_[pos].id);
  }
  return build(std::move(nodes), std::move(merged), Origin{});
}

}  // namespace metawarp::taxonomy
