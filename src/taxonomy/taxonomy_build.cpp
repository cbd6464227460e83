// Building a Taxonomy from nodes: ordering, id index, parent links, depths,
// and the checks that make every later walk terminate.
#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "taxonomy/taxonomy.hpp"
#include "taxonomy/taxonomy_origin.hpp"

namespace metawarp::taxonomy {
namespace {

// "10 -> 11 -> 12 -> 10" for the taxa at positions [first, last) of `nodes`,
// a cycle; a long one by its first taxa and its length.
using Positions = std::vector<std::uint32_t>::const_iterator;
std::string cycle_text(const std::vector<Node>& nodes, Positions first, Positions last) {
  constexpr std::ptrdiff_t listed = 8;
  std::string text;
  for (auto it = first; it != last && it - first < listed; ++it)
    text += std::to_string(nodes[*it].id) + " -> ";
  if (last - first > listed) text += "... -> ";
  text += std::to_string(nodes[*first].id);
  if (last - first > listed) text += " (" + std::to_string(last - first) + " taxa)";
  return text;
}

}  // namespace

Taxonomy Taxonomy::from_nodes(std::vector<Node> nodes,
                              std::vector<std::pair<taxid_t, taxid_t>> merged) {
  return build(std::move(nodes), std::move(merged), Origin{});
}

std::uint32_t Taxonomy::position_of(taxid_t id) const {
  if (!dense_index_.empty()) return id < dense_index_.size() ? dense_index_[id] : npos;
  const auto it = sparse_index_.find(id);
  return it == sparse_index_.end() ? npos : it->second;
}

Taxonomy Taxonomy::build(std::vector<Node> nodes,
                         std::vector<std::pair<taxid_t, taxid_t>> merged,
                         const Origin& origin) {
  const std::size_t n = nodes.size();
  if (n >= npos) throw std::runtime_error(origin.where(n) + "too many taxa");

  // Sort by id (NCBI's nodes.dmp already is), remembering each node's input
  // position so that errors can still name its line.
  const auto by_id = [](const Node& a, const Node& b) { return a.id < b.id; };
  std::vector<std::uint32_t> input_of;  // empty: identity
  if (!std::is_sorted(nodes.begin(), nodes.end(), by_id)) {
    input_of.resize(n);
    std::iota(input_of.begin(), input_of.end(), 0u);
    std::stable_sort(input_of.begin(), input_of.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return nodes[a].id < nodes[b].id; });
    std::vector<Node> sorted;
    sorted.reserve(n);
    for (const auto i : input_of) sorted.push_back(std::move(nodes[i]));
    nodes = std::move(sorted);
  }
  const auto input_index = [&](std::size_t pos) { return input_of.empty() ? pos : input_of[pos]; };
  const auto where = [&](std::size_t pos) { return origin.where(input_index(pos)); };

  for (std::size_t pos = 0; pos < n; ++pos) {
    if (nodes[pos].id == no_taxon) throw std::runtime_error(where(pos) + "taxid 0 is not allowed");
    if (pos > 0 && nodes[pos - 1].id == nodes[pos].id) {
      const std::string first = origin.location(input_index(pos - 1));
      throw std::runtime_error(where(pos) + "taxid " + std::to_string(nodes[pos].id) + " appears twice" +
                               (first.empty() ? "" : " (also at " + first + ")"));
    }
  }

  Taxonomy t;
  t.nodes_ = std::move(nodes);

  // NCBI ids are dense (1.4 M taxa below id 1.7 M), so a table beats hashing;
  // a few hundred taxa with ids in the millions get a hash map instead.
  if (n > 0) {
    const std::size_t max_id = t.nodes_.back().id;
    if (max_id <= 16 * n + 1024) {
      t.dense_index_.assign(max_id + 1, npos);
      for (std::size_t pos = 0; pos < n; ++pos) t.dense_index_[t.nodes_[pos].id] = std::uint32_t(pos);
    } else {
      t.sparse_index_.reserve(n);
      for (std::size_t pos = 0; pos < n; ++pos) t.sparse_index_.emplace(t.nodes_[pos].id, std::uint32_t(pos));
    }
  }

  t.parent_pos_.resize(n);
  for (std::size_t pos = 0; pos < n; ++pos) {
    const Node& node = t.nodes_[pos];
    const std::uint32_t parent = t.position_of(node.parent);
    if (parent == npos)
      throw std::runtime_error(where(pos) + "parent " + std::to_string(node.parent) +
                               " of taxid " + std::to_string(node.id) + " is not in the taxonomy");
    // One tree: a second root would cut its taxa off the others, so that no
    // read could be called above them (the report and the per-read calls
    // would not even agree on what is classified).
    if (parent == pos && node.id != root_taxon)
      throw std::runtime_error(where(pos) + "taxid " + std::to_string(node.id) +
                               " is its own parent, which only the root (taxid " +
                               std::to_string(root_taxon) + ") may be");
    t.parent_pos_[pos] = parent;
  }

  // Depths, iteratively (lineages can be deep); a node met again while its
  // own chain is still open lies on a cycle, which the message lists.
  constexpr std::uint32_t unset = npos, open = npos - 1;
  t.depth_.assign(n, unset);
  std::vector<std::uint32_t> chain;
  for (std::size_t start = 0; start < n; ++start) {
    chain.clear();
    std::uint32_t p = std::uint32_t(start);
    while (t.depth_[p] == unset) {
      if (t.parent_pos_[p] == p) {
        t.depth_[p] = 0;
        break;
      }
      t.depth_[p] = open;
      chain.push_back(p);
      p = t.parent_pos_[p];
    }
    if (t.depth_[p] == open) {
      const auto first = std::find(chain.begin(), chain.end(), p);
      throw std::runtime_error(where(p) + "taxa " + cycle_text(t.nodes_, first, chain.end()) +
                               " form a cycle of parents, which never reaches the root (taxid " +
                               std::to_string(root_taxon) + ")");
    }
    std::uint32_t depth = t.depth_[p];
    while (!chain.empty()) {
      t.depth_[chain.back()] = ++depth;
      chain.pop_back();
    }
  }

  std::erase_if(merged, [](const auto& m) { return m.first == no_taxon || m.second == no_taxon; });
  std::sort(merged.begin(), merged.end());
  merged.erase(std::unique(merged.begin(), merged.end()), merged.end());
  t.merged_ = std::move(merged);
  return t;
}

}  // namespace metawarp::taxonomy
