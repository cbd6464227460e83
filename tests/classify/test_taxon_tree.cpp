// The taxon of a feature (the LCA of its locations' taxa) against a
// brute-force LCA over ancestor sets, on random trees and random lists.
#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "catch.hpp"
#include "metawarp/classify/taxon_tree.hpp"

using namespace metawarp::classify;
using metawarp::sketch::Location;

namespace {

// A random forest of n nodes (1..n): node v's parent is an earlier node, or
// v itself (a root) for node 1 and, when `two_roots`, for node n / 2.
struct Forest {
  std::vector<taxon_node_t> parent{0};
  std::vector<std::uint32_t> depth{0};
  TaxonTree tree() const { return {parent.data(), depth.data()}; }
};

Forest random_forest(std::uint32_t n, bool two_roots, std::mt19937& rng) {
  Forest f;
  for (taxon_node_t v = 1; v <= n; ++v) {
    const bool root = v == 1 || (two_roots && v == n / 2);
    const taxon_node_t p = root ? v : std::uniform_int_distribution<taxon_node_t>(1, v - 1)(rng);
    f.parent.push_back(p);
    f.depth.push_back(root ? 0 : f.depth[p] + 1);
  }
  return f;
}

std::vector<taxon_node_t> ancestors(const Forest& f, taxon_node_t v) {
  std::vector<taxon_node_t> path{v};
  while (f.parent[v] != v) path.push_back(v = f.parent[v]);
  return path;
}

// The deepest node that is an ancestor-or-self of every mapped target's taxon.
taxon_node_t brute_force_taxon(const Forest& f, const std::vector<Location>& list,
                               const std::vector<taxon_node_t>& target_node) {
  std::set<taxon_node_t> common;
  bool any = false;
  for (const Location& loc : list) {
    const taxon_node_t t = target_node[loc.target];
    if (t == no_node) continue;
    const std::vector<taxon_node_t> up = ancestors(f, t);
    const std::set<taxon_node_t> mine(up.begin(), up.end());
    if (!any) {
      common = mine;
      any = true;
    } else {
      std::set<taxon_node_t> both;
      std::set_intersection(common.begin(), common.end(), mine.begin(), mine.end(),
                            std::inserter(both, both.end()));
      common = both;
    }
  }
  taxon_node_t best = no_node;
  for (taxon_node_t v : common)
    if (best == no_node || f.depth[v] > f.depth[best]) best = v;
  return best;
}

}  // namespace

TEST_CASE("lca and in_clade on a small tree") {
  // 1 root; 2, 3 under 1; 4, 5 under 2; 6 under 4.
  const std::vector<taxon_node_t> parent{0, 1, 1, 1, 2, 2, 4};
  const std::vector<std::uint32_t> depth{0, 0, 1, 1, 2, 2, 3};
  const TaxonTree tree{parent.data(), depth.data()};
  CHECK(lca(tree, 6, 5) == 2);
  CHECK(lca(tree, 6, 3) == 1);
  CHECK(lca(tree, 6, 4) == 4);
  CHECK(lca(tree, 6, no_node) == 6);
  CHECK(lca(tree, no_node, 5) == 5);
  CHECK(in_clade(tree, 6, 2));
  CHECK(in_clade(tree, 6, 6));
  CHECK_FALSE(in_clade(tree, 5, 4));
  CHECK_FALSE(in_clade(tree, no_node, 1));
}

TEST_CASE("feature taxon equals the brute-force LCA on random databases") {
  std::mt19937 rng(20261124);
  for (int round = 0; round < 300; ++round) {
    const std::uint32_t nodes = std::uniform_int_distribution<std::uint32_t>(1, 60)(rng);
    const Forest f = random_forest(nodes, round % 5 == 4 && nodes >= 4, rng);
    const std::uint32_t targets = std::uniform_int_distribution<std::uint32_t>(1, 20)(rng);
    std::vector<taxon_node_t> target_node(targets);
    for (auto& t : target_node)  // about one target in 8 unmapped
      t = std::uniform_int_distribution<int>(0, 7)(rng) == 0
              ? no_node
              : std::uniform_int_distribution<taxon_node_t>(1, nodes)(rng);
    for (int feature = 0; feature < 20; ++feature) {
      const std::uint32_t n = std::uniform_int_distribution<std::uint32_t>(0, 12)(rng);
      std::vector<Location> list;
      for (std::uint32_t i = 0; i < n; ++i)
        list.push_back(Location{std::uniform_int_distribution<std::uint32_t>(0, targets - 1)(rng),
                                std::uniform_int_distribution<std::uint32_t>(0, 5)(rng)});
      std::sort(list.begin(), list.end());
      list.erase(std::unique(list.begin(), list.end()), list.end());
      const taxon_node_t got =
          feature_taxon(list.data(), std::uint32_t(list.size()), target_node.data(), f.tree());
      CHECK(got == brute_force_taxon(f, list, target_node));
      // The order of the list does not matter (a GPU gathers in any order).
      std::shuffle(list.begin(), list.end(), rng);
      CHECK(feature_taxon(list.data(), std::uint32_t(list.size()), target_node.data(),
                          f.tree()) == got);
    }
  }
}
