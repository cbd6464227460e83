#pragma once
// NCBI taxonomy: nodes with parents, ranks and scientific names; merged ids;
// lineages and ranked lineages for LCA. Loaded from NCBI dumps or from a
// database's embedded subset.
#include <array>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "taxonomy/rank.hpp"

namespace metawarp::taxonomy {

using taxid_t = std::uint32_t;
inline constexpr taxid_t no_taxon = 0;  // NCBI never uses 0
inline constexpr taxid_t root_taxon = 1;

struct Node {
  taxid_t id = no_taxon;
  taxid_t parent = no_taxon;  // root's parent is itself (1), as in nodes.dmp
  Rank rank = Rank::none;
  std::string name;           // scientific name
};

// A lineage reduced to the canonical ranks: ids[r] is the ancestor at canonical
// rank r (or no_taxon where the lineage has none). The lowest common ancestor
// of two lineages is the lowest canonical rank at which both name the same taxon.
struct RankedLineage {
  std::array<taxid_t, canonical_rank_count> ids{};
  taxid_t at(CanonicalRank r) const { return ids[std::size_t(r)]; }
};

// Immutable once built: const member functions may be called from many
// threads at once.
class Taxonomy {
 public:
  Taxonomy() = default;

  // nodes.dmp and names.dmp (and merged.dmp if present) from `dir`; each may
  // also be gzip-compressed (nodes.dmp.gz). Without merged.dmp[.gz], a single
  // merged*.dmp[.gz] (e.g. merged-2013.dmp.gz) is used. Only scientific names
  // are kept. Throws std::runtime_error naming file, line and problem on
  // malformed input, a parent that is not in nodes.dmp, a duplicate id, a
  // taxon other than the root that is its own parent, or a cycle (naming its
  // taxa).
  static Taxonomy load_ncbi(const std::filesystem::path& dir);
  // The files load_ncbi(dir) reads (those that exist).
  static std::vector<std::filesystem::path> ncbi_files(const std::filesystem::path& dir);
  // Nodes in any order, one tree: the root, taxid 1, is its own parent, and
  // every other node's parents lead to it. Throws on duplicate ids, id 0,
  // missing parents, another node that is its own parent, and cycles.
  static Taxonomy from_nodes(std::vector<Node> nodes,
                             std::vector<std::pair<taxid_t, taxid_t>> merged = {});

  std::size_t size() const { return nodes_.size(); }
  bool empty() const { return nodes_.empty(); }

  // Follows merged.dmp; returns no_taxon for an unknown id.
  taxid_t resolve(taxid_t id) const;
  // nullptr for unknown ids (after resolving merged ids).
  const Node* find(taxid_t id) const;

  // id, parent, ..., root (empty for unknown ids).
  std::vector<taxid_t> lineage(taxid_t id) const;
  // ids[r] is the lowest ancestor (or the taxon itself) whose rank is
  // canonical rank r; ids[root] is always the tree's root (taxid 1 for NCBI,
  // whose root has "no rank"), ids[sequence] is always no_taxon (set by the
  // caller). All no_taxon for unknown ids.
  RankedLineage ranked_lineage(taxid_t id) const;
  // Lowest common ancestor in the full tree. An unknown id (or no_taxon) is
  // neutral: lca(a, unknown) == resolve(a).
  taxid_t lca(taxid_t a, taxid_t b) const;

  // The taxa `keep` and all their ancestors (and the merged entries pointing
  // at them). Ids are resolved through merged first; unknown ids are ignored.
  Taxonomy subset_with_ancestors(std::span<const taxid_t> keep) const;

  // Nodes sorted by id (the order in which a database stores them).
  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<std::pair<taxid_t, taxid_t>>& merged() const { return merged_; }

  // Rank names in nodes.dmp that metawarp does not know: such nodes get
  // Rank::none. How many nodes, and the distinct names (at most 32 listed).
  std::size_t unknown_rank_count() const { return unknown_rank_count_; }
  const std::vector<std::string>& unknown_rank_names() const { return unknown_rank_names_; }

 private:
  static constexpr std::uint32_t npos = 0xffffffffu;
  struct Origin;  // where nodes came from, for error messages

  static Taxonomy build(std::vector<Node> nodes,
                        std::vector<std::pair<taxid_t, taxid_t>> merged,
                        const Origin& origin);
  // Position in nodes_ of a live (not merged) id, or npos.
  std::uint32_t position_of(taxid_t id) const;
  std::uint32_t resolved_position(taxid_t id) const;

  std::vector<Node> nodes_;  // sorted by id
  // id -> position in nodes_: a dense table when ids are compact (NCBI's
  // are), a hash map otherwise (small subsets with large ids).
  std::vector<std::uint32_t> dense_index_;
  std::unordered_map<taxid_t, std::uint32_t> sparse_index_;
  // Per node, by position: the parent's position (a root points at itself)
  // and the distance to the root. Walks never exceed depth_ steps, and
  // construction rejects cycles and second roots, so no query can loop and
  // every lineage ends at the root.
  std::vector<std::uint32_t> parent_pos_;
  std::vector<std::uint32_t> depth_;
  std::vector<std::pair<taxid_t, taxid_t>> merged_;  // old -> new, sorted
  std::size_t unknown_rank_count_ = 0;
  std::vector<std::string> unknown_rank_names_;
};

}  // namespace metawarp::taxonomy
