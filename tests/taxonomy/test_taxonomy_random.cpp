// Random trees against brute-force ancestor sets: lineage, ranked lineage,
// lca and subsets, with dense and sparse ids, and a dump-file round trip.
#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "catch.hpp"
#include "temp_files.hpp"
#include "taxonomy/taxonomy.hpp"

using namespace metawarp::taxonomy;

namespace {

struct RandomTree {
  std::vector<Node> nodes;  // creation order: parents before children
  std::map<taxid_t, taxid_t> parent;
  std::map<taxid_t, Rank> rank;
};

// `n` nodes under root 1; ids from `id_range` (dense: small; sparse: huge).
// Parents are random earlier nodes, biased towards recent ones so the tree
// gets deep as well as wide. Ranks are random, including unranked ones.
RandomTree random_tree(std::size_t n, std::uint32_t id_range, std::mt19937& rng) {
  RandomTree tree;
  std::unordered_set<taxid_t> used{1};
  std::vector<taxid_t> ids{1};
  std::uniform_int_distribution<std::uint32_t> id_dist(2, id_range);
  while (ids.size() < n) {
    const taxid_t id = id_dist(rng);
    if (used.insert(id).second) ids.push_back(id);
  }
  tree.nodes.push_back(Node{1, 1, Rank::none, "root"});
  tree.parent[1] = 1;
  tree.rank[1] = Rank::none;
  for (std::size_t i = 1; i < n; ++i) {
    std::size_t p;
    if (rng() % 2) {
      p = rng() % i;
    } else {
      const std::size_t back = 1 + rng() % std::min<std::size_t>(i, 8);
      p = i - back;
    }
    const Rank r = Rank(rng() % (std::size_t(Rank::root) + 1));
    tree.nodes.push_back(Node{ids[i], ids[p], r, "taxon " + std::to_string(ids[i])});
    tree.parent[ids[i]] = ids[p];
    tree.rank[ids[i]] = r;
  }
  return tree;
}

std::vector<taxid_t> brute_lineage(const RandomTree& tree, taxid_t id) {
  std::vector<taxid_t> out{id};
  while (tree.parent.at(id) != id) out.push_back(id = tree.parent.at(id));
  return out;
}

taxid_t brute_lca(const RandomTree& tree, taxid_t a, taxid_t b) {
  const auto la = brute_lineage(tree, a);
  const std::set<taxid_t> ancestors_of_a(la.begin(), la.end());
  for (const auto x : brute_lineage(tree, b))
    if (ancestors_of_a.count(x)) return x;
  return no_taxon;
}

RankedLineage brute_ranked(const RandomTree& tree, taxid_t id) {
  RankedLineage r;
  const auto lineage = brute_lineage(tree, id);
  for (const auto x : lineage) {
    const auto c = canonical_rank_of(tree.rank.at(x));
    if (!c || *c == CanonicalRank::root || *c == CanonicalRank::sequence) continue;
    if (r.ids[std::size_t(*c)] == no_taxon) r.ids[std::size_t(*c)] = x;
  }
  r.ids[std::size_t(CanonicalRank::root)] = lineage.back();
  return r;
}

void check_against_brute_force(const RandomTree& tree, const Taxonomy& t, std::mt19937& rng) {
  REQUIRE(t.size() == tree.nodes.size());
  for (const auto& node : tree.nodes) {
    REQUIRE(t.lineage(node.id) == brute_lineage(tree, node.id));
    REQUIRE(t.ranked_lineage(node.id).ids == brute_ranked(tree, node.id).ids);
  }
  for (int i = 0; i < 20000; ++i) {
    const taxid_t a = tree.nodes[rng() % tree.nodes.size()].id;
    const taxid_t b = tree.nodes[rng() % tree.nodes.size()].id;
    INFO(a << " " << b);
    REQUIRE(t.lca(a, b) == brute_lca(tree, a, b));
  }
}

}  // namespace

TEST_CASE("random trees: lineage, ranked lineage and lca match brute force", "[taxonomy][random]") {
  const auto id_range = GENERATE(values<std::uint32_t>({6000, 4000000000u}));  // dense, sparse
  std::mt19937 rng(12345 + id_range);
  RandomTree tree = random_tree(3000, id_range, rng);
  std::vector<Node> shuffled = tree.nodes;
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  const Taxonomy t = Taxonomy::from_nodes(shuffled);
  check_against_brute_force(tree, t, rng);
}

TEST_CASE("random trees: merged ids resolve and subsets keep exactly the ancestors",
          "[taxonomy][random]") {
  std::mt19937 rng(777);
  const RandomTree tree = random_tree(3000, 100000, rng);
  // Merge some unused ids onto random live ones.
  std::unordered_set<taxid_t> live;
  for (const auto& n : tree.nodes) live.insert(n.id);
  std::vector<std::pair<taxid_t, taxid_t>> merged;
  std::map<taxid_t, taxid_t> merged_to;
  for (taxid_t old_id = 100001; merged.size() < 300; old_id += 7) {
    const taxid_t target = tree.nodes[rng() % tree.nodes.size()].id;
    merged.emplace_back(old_id, target);
    merged_to[old_id] = target;
  }
  const Taxonomy t = Taxonomy::from_nodes(tree.nodes, merged);
  for (const auto& [old_id, target] : merged_to) REQUIRE(t.resolve(old_id) == target);

  for (int round = 0; round < 20; ++round) {
    std::vector<taxid_t> keep;
    const std::size_t count = 1 + rng() % 50;
    for (std::size_t i = 0; i < count; ++i) {
      switch (rng() % 3) {
        case 0: keep.push_back(tree.nodes[rng() % tree.nodes.size()].id); break;
        case 1: keep.push_back(merged[rng() % merged.size()].first); break;
        default: keep.push_back(5000000 + taxid_t(rng() % 1000)); break;  // unknown
      }
    }
    std::set<taxid_t> expected;
    for (taxid_t id : keep) {
      if (merged_to.count(id)) id = merged_to[id];
      if (!live.count(id)) continue;
      for (const auto x : brute_lineage(tree, id)) expected.insert(x);
    }
    const Taxonomy s = t.subset_with_ancestors(keep);
    std::set<taxid_t> got;
    for (const auto& n : s.nodes()) got.insert(n.id);
    REQUIRE(got == expected);
    for (const auto& [old_id, target] : merged_to) {
      // A merged entry survives exactly when its target is in the subset.
      REQUIRE(s.resolve(old_id) == (expected.count(target) ? target : no_taxon));
    }
    for (const auto id : expected) REQUIRE(s.lineage(id) == t.lineage(id));
  }
}

TEST_CASE("a very deep chain does not recurse or slow down", "[taxonomy][random]") {
  std::vector<Node> nodes{Node{1, 1, Rank::none, ""}};
  const taxid_t depth = 200000;
  for (taxid_t id = 2; id <= depth; ++id) nodes.push_back(Node{id, id - 1, Rank::none, ""});
  nodes.push_back(Node{depth + 1, depth / 2, Rank::species, ""});  // a branch half-way
  const Taxonomy t = Taxonomy::from_nodes(std::move(nodes));
  CHECK(t.lca(depth, depth + 1) == depth / 2);
  CHECK(t.lineage(depth).size() == depth);
  CHECK(t.ranked_lineage(depth + 1).at(CanonicalRank::species) == depth + 1);
}

TEST_CASE("random tree written as gzip dumps loads identically", "[taxonomy][random]") {
  std::mt19937 rng(4242);
  RandomTree tree = random_tree(5000, 20000, rng);
  std::string nodes_text, names_text;
  for (const auto& n : tree.nodes) {
    nodes_text += metawarp::test::nodes_line(n.id, n.parent, rank_name(n.rank));
    names_text += metawarp::test::names_line(n.id, n.name, "scientific name");
  }
  metawarp::test::TempDir dir;
  metawarp::test::write_gz(dir / "nodes.dmp.gz", nodes_text);
  metawarp::test::write_gz(dir / "names.dmp.gz", names_text);
  const Taxonomy loaded = Taxonomy::load_ncbi(dir.path());
  CHECK(loaded.unknown_rank_count() == 0);
  for (const auto& n : tree.nodes) {
    const Node* got = loaded.find(n.id);
    REQUIRE(got != nullptr);
    CHECK(got->parent == n.parent);
    CHECK(got->rank == n.rank);
    CHECK(got->name == n.name);
  }
  check_against_brute_force(tree, loaded, rng);
}
