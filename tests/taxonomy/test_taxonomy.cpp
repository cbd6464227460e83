// Ranks, and a hand-written NCBI-like taxonomy loaded from dump files.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "catch.hpp"
#include "hand_tree.hpp"
#include "taxonomy/taxonomy.hpp"

using namespace metawarp::taxonomy;
using metawarp::test::TempDir;

namespace {

// Lineage from the hand-written parent table (independent of the library).
std::vector<taxid_t> reference_lineage(taxid_t id) {
  std::map<taxid_t, taxid_t> parent;
  for (const auto& n : metawarp::test::hand_nodes()) parent[n.id] = n.parent;
  std::vector<taxid_t> out{id};
  while (parent.at(id) != id) out.push_back(id = parent.at(id));
  return out;
}

Taxonomy load_hand_tree(const TempDir& dir) {
  metawarp::test::write_text(dir / "nodes.dmp", metawarp::test::hand_nodes_dmp());
  metawarp::test::write_text(dir / "names.dmp", metawarp::test::hand_names_dmp());
  metawarp::test::write_text(dir / "merged.dmp", metawarp::test::hand_merged_dmp());
  return Taxonomy::load_ncbi(dir.path());
}

}  // namespace

TEST_CASE("rank names round-trip for every NCBI spelling", "[taxonomy][rank]") {
  const std::vector<std::string> ncbi{
      "no rank", "clade", "strain", "isolate", "serotype", "serogroup", "genotype", "morph",
      "biotype", "forma", "forma specialis", "pathogroup", "varietas", "subvariety",
      "subspecies", "species", "species subgroup", "species group", "series", "subsection",
      "section", "subgenus", "genus", "subtribe", "tribe", "subfamily", "family",
      "superfamily", "parvorder", "infraorder", "suborder", "order", "superorder",
      "subcohort", "cohort", "infraclass", "subclass", "class", "superclass", "subphylum",
      "phylum", "superphylum", "subkingdom", "kingdom", "realm", "superkingdom", "domain",
      "cellular root", "acellular root", "sequence"};
  std::set<Rank> seen;
  for (const auto& name : ncbi) {
    const auto rank = rank_from_name(name);
    REQUIRE(rank.has_value());
    CHECK(rank_name(*rank) == name);
    seen.insert(*rank);
  }
  CHECK(seen.size() == ncbi.size());  // distinct names, distinct ranks
  for (int i = 0; i <= int(Rank::root); ++i)
    CHECK(rank_from_name(rank_name(Rank(i))) == Rank(i));
  CHECK(rank_from_name("no_rank") == std::nullopt);
  CHECK(rank_from_name("Species") == std::nullopt);
  CHECK(rank_from_name("") == std::nullopt);
}

TEST_CASE("canonical ranks follow the documented mapping", "[taxonomy][rank]") {
  const std::map<std::string, std::string> expected{
      {"strain", "subspecies"},  {"isolate", "subspecies"},   {"serotype", "subspecies"},
      {"serogroup", "subspecies"}, {"genotype", "subspecies"}, {"morph", "subspecies"},
      {"biotype", "subspecies"}, {"forma", "subspecies"},     {"forma specialis", "subspecies"},
      {"pathogroup", "subspecies"}, {"varietas", "subspecies"}, {"subvariety", "subspecies"},
      {"subspecies", "subspecies"}, {"species", "species"},   {"genus", "genus"},
      {"family", "family"},      {"order", "order"},          {"class", "class"},
      {"phylum", "phylum"},      {"kingdom", "kingdom"},      {"superkingdom", "domain"},
      {"domain", "domain"},      {"realm", "domain"},         {"cellular root", "root"},
      {"acellular root", "root"}, {"sequence", "sequence"}};
  for (int i = 0; i <= int(Rank::root); ++i) {
    const Rank r = Rank(i);
    const std::string name(rank_name(r));
    const auto canonical = canonical_rank_of(r);
    if (r == Rank::root) {
      CHECK(canonical == CanonicalRank::root);
    } else if (auto it = expected.find(name); it != expected.end()) {
      REQUIRE(canonical.has_value());
      CHECK(canonical_rank_name(*canonical) == it->second);
    } else {
      INFO(name);
      CHECK_FALSE(canonical.has_value());  // no rank, clade, subgenus, superfamily, ...
    }
  }
}

TEST_CASE("canonical rank names parse back, superkingdom as domain", "[taxonomy][rank]") {
  for (std::size_t r = 0; r < metawarp::taxonomy::canonical_rank_count; ++r) {
    const auto rank = CanonicalRank(r);
    CHECK(metawarp::taxonomy::parse_canonical_rank(canonical_rank_name(rank)) == rank);
  }
  CHECK(metawarp::taxonomy::parse_canonical_rank("superkingdom") == CanonicalRank::domain);
  CHECK_FALSE(metawarp::taxonomy::parse_canonical_rank("tribe").has_value());
  CHECK_FALSE(metawarp::taxonomy::parse_canonical_rank("Species").has_value());
}

TEST_CASE("hand-written taxonomy: nodes, names, ranks, merged ids", "[taxonomy]") {
  TempDir dir;
  const Taxonomy t = load_hand_tree(dir);
  const auto& hand = metawarp::test::hand_nodes();
  REQUIRE(t.size() == hand.size());
  for (const auto& n : hand) {
    const Node* node = t.find(n.id);
    REQUIRE(node != nullptr);
    CHECK(node->id == n.id);
    CHECK(node->parent == n.parent);
    CHECK(node->name == n.name);  // scientific name only
    const auto rank = rank_from_name(n.rank);
    CHECK(node->rank == rank.value_or(Rank::none));
  }
  CHECK(std::is_sorted(t.nodes().begin(), t.nodes().end(),
                       [](const Node& a, const Node& b) { return a.id < b.id; }));
  CHECK(t.unknown_rank_count() == 1);
  REQUIRE(t.unknown_rank_names().size() == 1);
  CHECK(t.unknown_rank_names()[0] == "mystery rank");

  CHECK(t.resolve(562) == 562);
  CHECK(t.resolve(4) == 562);
  CHECK(t.resolve(7) == 562);  // chain 7 -> 4 -> 562
  CHECK(t.resolve(5) == 1280);
  CHECK(t.resolve(3) == no_taxon);
  CHECK(t.resolve(no_taxon) == no_taxon);
  CHECK(t.find(123456) == nullptr);
  REQUIRE(t.find(4) != nullptr);
  CHECK(t.find(4)->id == 562);
  CHECK(t.merged().size() == 3);
}

TEST_CASE("hand-written taxonomy: lineages", "[taxonomy]") {
  TempDir dir;
  const Taxonomy t = load_hand_tree(dir);
  for (const auto& n : metawarp::test::hand_nodes()) CHECK(t.lineage(n.id) == reference_lineage(n.id));
  CHECK(t.lineage(4) == reference_lineage(562));
  CHECK(t.lineage(3).empty());
  CHECK(t.lineage(1) == std::vector<taxid_t>{1});
}

TEST_CASE("hand-written taxonomy: ranked lineages", "[taxonomy]") {
  TempDir dir;
  const Taxonomy t = load_hand_tree(dir);
  using C = CanonicalRank;

  // A "no rank" node below a strain: the strain is its subspecies level.
  const auto k12 = t.ranked_lineage(511145);
  CHECK(k12.at(C::sequence) == no_taxon);
  CHECK(k12.at(C::subspecies) == 83333);
  CHECK(k12.at(C::species) == 562);
  CHECK(k12.at(C::genus) == 561);
  CHECK(k12.at(C::family) == 543);
  CHECK(k12.at(C::order) == 91347);
  CHECK(k12.at(C::class_) == 1236);
  CHECK(k12.at(C::phylum) == 1224);
  CHECK(k12.at(C::kingdom) == no_taxon);
  CHECK(k12.at(C::domain) == 2);  // superkingdom
  CHECK(k12.at(C::root) == 1);    // not "cellular organisms"

  // Serotype below subspecies: the lowest one wins.
  CHECK(t.ranked_lineage(90371).at(C::subspecies) == 90371);
  CHECK(t.ranked_lineage(59201).at(C::subspecies) == 59201);
  CHECK(t.ranked_lineage(28901).at(C::subspecies) == no_taxon);

  // A clade between domain and phylum changes nothing.
  const auto aureus = t.ranked_lineage(1280);
  CHECK(aureus.at(C::phylum) == 1239);
  CHECK(aureus.at(C::domain) == 2);

  // "domain" spelling (Archaea), missing family/order/class.
  const auto mj = t.ranked_lineage(2190);
  CHECK(mj.at(C::domain) == 2157);
  CHECK(mj.at(C::genus) == 196118);
  CHECK(mj.at(C::family) == no_taxon);
  CHECK(mj.at(C::root) == 1);

  // Viruses: realm is the domain level, acellular root is not the root.
  const auto sars2 = t.ranked_lineage(2697049);
  CHECK(sars2.at(C::species) == 694009);
  CHECK(sars2.at(C::genus) == 694002);
  CHECK(sars2.at(C::family) == 11118);
  CHECK(sars2.at(C::domain) == 2559587);
  CHECK(sars2.at(C::root) == 1);

  CHECK(t.ranked_lineage(1).at(C::root) == 1);
  CHECK(t.ranked_lineage(7).ids == t.ranked_lineage(562).ids);  // merged
  CHECK(t.ranked_lineage(3).ids == RankedLineage{}.ids);        // unknown
}

TEST_CASE("hand-written taxonomy: lca", "[taxonomy]") {
  TempDir dir;
  const Taxonomy t = load_hand_tree(dir);
  // Reference: lowest element of a's lineage that is also in b's.
  const auto reference_lca = [](taxid_t a, taxid_t b) {
    const auto la = reference_lineage(a);
    const auto lb = reference_lineage(b);
    for (const auto x : la)
      if (std::find(lb.begin(), lb.end(), x) != lb.end()) return x;
    return no_taxon;
  };
  for (const auto& a : metawarp::test::hand_nodes())
    for (const auto& b : metawarp::test::hand_nodes()) {
      INFO(a.id << " " << b.id);
      CHECK(t.lca(a.id, b.id) == reference_lca(a.id, b.id));
    }
  CHECK(t.lca(562, 590) == 543);
  CHECK(t.lca(83333, 1280) == 2);
  CHECK(t.lca(562, 2190) == 131567);
  CHECK(t.lca(562, 2697049) == 1);
  CHECK(t.lca(4, 5) == 2);          // merged ids
  CHECK(t.lca(7, 511145) == 562);
  CHECK(t.lca(562, no_taxon) == 562);  // unknown is neutral
  CHECK(t.lca(3, 590) == 590);
  CHECK(t.lca(3, 4) == 562);
  CHECK(t.lca(3, 3) == no_taxon);
}

TEST_CASE("subset_with_ancestors keeps lineages and merged entries", "[taxonomy]") {
  TempDir dir;
  const Taxonomy t = load_hand_tree(dir);
  const std::vector<taxid_t> keep{83333, 4, 2190, 424242, 694009, 83333};
  const Taxonomy s = t.subset_with_ancestors(keep);

  std::set<taxid_t> expected;
  for (const taxid_t id : {83333u, 562u, 2190u, 694009u})
    for (const auto x : reference_lineage(id)) expected.insert(x);
  std::set<taxid_t> got;
  for (const auto& n : s.nodes()) got.insert(n.id);
  CHECK(got == expected);

  for (const auto id : expected) {
    REQUIRE(s.find(id) != nullptr);
    CHECK(s.find(id)->name == t.find(id)->name);
    CHECK(s.find(id)->rank == t.find(id)->rank);
    CHECK(s.lineage(id) == t.lineage(id));
    CHECK(s.ranked_lineage(id).ids == t.ranked_lineage(id).ids);
  }
  // 4 and 7 lead to 562, which is kept; 5 leads to 1280, which is not.
  const std::vector<std::pair<taxid_t, taxid_t>> merged{{4, 562}, {7, 562}};
  CHECK(s.merged() == merged);
  CHECK(s.resolve(7) == 562);
  CHECK(s.resolve(5) == no_taxon);
  CHECK(s.lca(83333, 2190) == 131567);

  CHECK(t.subset_with_ancestors(std::vector<taxid_t>{}).empty());
}

TEST_CASE("only the root may be its own parent", "[taxonomy]") {
  const auto node = [](taxid_t id, taxid_t parent) { return Node{id, parent, Rank::none, ""}; };
  // A second root would cut its taxa off the tree: their reads would count as
  // classified per read and as unclassified in the report.
  REQUIRE_THROWS_WITH(Taxonomy::from_nodes({node(1, 1), node(2, 1), node(50, 50), node(51, 50)}),
                      "taxonomy: taxid 50 is its own parent, which only the root (taxid 1) may be");
  REQUIRE_THROWS_WITH(Taxonomy::from_nodes({node(7, 7)}),
                      "taxonomy: taxid 7 is its own parent, which only the root (taxid 1) may be");
  // The root is its own parent; a root that is not (1 -> 5 -> 1) is a cycle.
  CHECK(Taxonomy::from_nodes({node(1, 1), node(2, 1)}).lineage(2) == std::vector<taxid_t>{2, 1});
  REQUIRE_THROWS_WITH(Taxonomy::from_nodes({node(1, 5), node(5, 1)}),
                      "taxonomy: taxa 1 -> 5 -> 1 form a cycle of parents, which never reaches "
                      "the root (taxid 1)");
}

TEST_CASE("a long cycle is named by its first taxa and its length", "[taxonomy]") {
  std::vector<Node> nodes{Node{1, 1, Rank::none, ""}};
  for (taxid_t id = 100; id < 200; ++id)
    nodes.push_back(Node{id, id == 199 ? 100 : id + 1, Rank::none, ""});
  REQUIRE_THROWS_WITH(Taxonomy::from_nodes(nodes),
                      "taxonomy: taxa 100 -> 101 -> 102 -> 103 -> 104 -> 105 -> 106 -> 107 -> ... "
                      "-> 100 (100 taxa) form a cycle of parents, which never reaches the root "
                      "(taxid 1)");
}

TEST_CASE("from_nodes builds the same taxonomy as the dump files", "[taxonomy]") {
  TempDir dir;
  const Taxonomy loaded = load_hand_tree(dir);
  std::vector<Node> nodes;
  for (const auto& n : metawarp::test::hand_nodes())
    nodes.push_back(Node{n.id, n.parent, rank_from_name(n.rank).value_or(Rank::none), n.name});
  std::reverse(nodes.begin(), nodes.end());  // any order
  std::vector<std::pair<taxid_t, taxid_t>> merged;
  for (const auto& [o, n] : metawarp::test::hand_merged()) merged.emplace_back(o, n);
  metawarp::test::require_same(Taxonomy::from_nodes(nodes, merged), loaded);
}

TEST_CASE("from_nodes rejects invalid trees without hanging", "[taxonomy]") {
  const auto node = [](taxid_t id, taxid_t parent) { return Node{id, parent, Rank::none, ""}; };
  REQUIRE_THROWS_WITH(Taxonomy::from_nodes({node(1, 1), node(5, 6)}),
                      "taxonomy: parent 6 of taxid 5 is not in the taxonomy");
  REQUIRE_THROWS_AS(Taxonomy::from_nodes({node(1, 1), node(5, 1), node(5, 1)}), std::runtime_error);
  REQUIRE_THROWS_AS(Taxonomy::from_nodes({node(1, 1), node(0, 1)}), std::runtime_error);
  // 10 -> 11 -> 12 -> 10 never reaches the root: the message names the taxa of the cycle.
  REQUIRE_THROWS_WITH(Taxonomy::from_nodes({node(1, 1), node(10, 11), node(11, 12), node(12, 10),
                                            node(13, 10)}),
                      "taxonomy: taxa 10 -> 11 -> 12 -> 10 form a cycle of parents, which never "
                      "reaches the root (taxid 1)");
  const Taxonomy empty = Taxonomy::from_nodes({});
  CHECK(empty.empty());
  CHECK(empty.lca(1, 2) == no_taxon);
  CHECK(empty.lineage(1).empty());
}
