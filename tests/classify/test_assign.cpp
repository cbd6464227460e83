// Assignment rules (hit-min, hit-diff, LCA on ranked lineages, lowest/highest
// rank limits) on a hand-built lineage table with hand-worked answers.
#include <vector>

#include "catch.hpp"
#include "metawarp/classify/assign.hpp"

using namespace metawarp::classify;

namespace {

// Levels: 0 sequence, 1 subspecies, 2 species, 3 genus, 4 family, 5 order,
// 6 class, 7 phylum, 8 kingdom, 9 domain, 10 root.
TargetLineage lineage(std::vector<taxid_t> ids) {
  TargetLineage l;
  for (std::size_t i = 0; i < ids.size(); ++i) l.ids[i] = ids[i];
  return l;
}

const std::vector<TargetLineage> table{
    lineage({101, 0, 101, 10, 5, 0, 0, 0, 0, 2, 1}),   // 0: species 101, genus 10
    lineage({1011, 0, 101, 10, 5, 0, 0, 0, 0, 2, 1}),  // 1: "no rank" strain under 101
    lineage({102, 0, 102, 10, 5, 0, 0, 0, 0, 2, 1}),   // 2: species 102, genus 10
    lineage({201, 0, 201, 20, 5, 0, 0, 0, 0, 2, 1}),   // 3: species 201, genus 20
    lineage({}),                                       // 4: unmapped target
    lineage({101, 0, 101, 10, 5, 0, 0, 0, 0, 2, 1}),   // 5: second sequence of 101
    lineage({10, 0, 0, 10, 5, 0, 0, 0, 0, 2, 1}),      // 6: mapped to genus 10
    lineage({55, 0, 0, 0, 5, 0, 0, 0, 0, 2, 1}),       // 7: clade between genus and family
};

taxid_t call(std::vector<Candidate> top, AssignParams p = {}) {
  return assign(top.data(), std::uint32_t(top.size()), table.data(), p).taxid;
}

Candidate cand(target_id_t t, std::uint32_t hits) { return Candidate{t, 0, 0, hits}; }

AssignParams limits(std::uint32_t lowest, std::uint32_t highest) {
  AssignParams p;
  p.lowest = lowest;
  p.highest = highest;
  return p;
}

}  // namespace

TEST_CASE("hit-min decides classified or not") {
  AssignParams p;
  p.hit_min = 5;
  CHECK(call({}, p) == unclassified_taxon);
  CHECK(call({cand(0, 4)}, p) == unclassified_taxon);
  CHECK(call({cand(0, 5)}, p) == 101);
  const std::vector<Candidate> none{cand(0, 4), cand(1, 1)};
  const Assignment a = assign(none.data(), 2, table.data(), p);
  CHECK(a.best_hits == 4);
  CHECK(a.candidates_used == 0);
}

TEST_CASE("LCA of the best and the candidates within hit-diff") {
  CHECK(call({cand(1, 5)}) == 1011);                  // a single target: its own taxon
  CHECK(call({cand(1, 5), cand(2, 5)}) == 10);        // tie across species: genus
  CHECK(call({cand(1, 5), cand(2, 4)}) == 1011);      // not within hit-diff 0
  AssignParams p;
  p.hit_diff = 1;
  CHECK(call({cand(1, 5), cand(2, 4)}, p) == 10);     // within hit-diff 1
  CHECK(call({cand(1, 5), cand(2, 3)}, p) == 1011);
  CHECK(call({cand(0, 7), cand(5, 7)}) == 101);       // two sequences of one taxon
  CHECK(call({cand(0, 7), cand(1, 7)}) == 101);       // species and its strain
  CHECK(call({cand(0, 7), cand(3, 7)}) == 5);         // different genera: family
  CHECK(call({cand(0, 7), cand(6, 7)}) == 10);        // species and its genus
  CHECK(call({cand(0, 7), cand(4, 7)}) == unclassified_taxon);  // unmapped shares nothing
  CHECK(call({cand(4, 9)}) == unclassified_taxon);
  p.hit_diff = 100;
  CHECK(call({cand(1, 5), cand(0, 3), cand(2, 1)}, p) == 10);
  const std::vector<Candidate> three{cand(1, 5), cand(0, 3), cand(2, 1)};
  CHECK(assign(three.data(), 3, table.data(), p).candidates_used == 3);
}

TEST_CASE("lowest rank lifts, highest rank drops") {
  const std::uint32_t species = 2, genus = 3, family = 4;
  // --lowest species
  CHECK(call({cand(1, 5)}, limits(species, level_root)) == 101);
  CHECK(call({cand(0, 5)}, limits(species, level_root)) == 101);
  CHECK(call({cand(6, 5)}, limits(species, level_root)) == 10);   // already above
  CHECK(call({cand(7, 5)}, limits(species, level_root)) == 55);   // clade above species
  // --lowest genus
  CHECK(call({cand(1, 5)}, limits(genus, level_root)) == 10);
  CHECK(call({cand(0, 5), cand(3, 5)}, limits(genus, level_root)) == 5);
  // --highest species
  CHECK(call({cand(1, 5)}, limits(0, species)) == 1011);
  CHECK(call({cand(0, 5)}, limits(0, species)) == 101);
  CHECK(call({cand(6, 5)}, limits(0, species)) == unclassified_taxon);
  CHECK(call({cand(0, 5), cand(3, 5)}, limits(0, species)) == unclassified_taxon);
  // --highest genus / family with a clade sitting between them
  CHECK(call({cand(7, 5)}, limits(0, genus)) == unclassified_taxon);
  CHECK(call({cand(7, 5)}, limits(0, family)) == 55);
  // --lowest genus --highest genus: everything at genus or nothing
  CHECK(call({cand(1, 5)}, limits(genus, genus)) == 10);
  CHECK(call({cand(0, 5), cand(3, 5)}, limits(genus, genus)) == unclassified_taxon);
  // a clade between genus and family: above genus, below family
  CHECK(call({cand(7, 5)}, limits(genus, level_root)) == 55);  // not below genus
  CHECK(call({cand(7, 5)}, limits(family, level_root)) == 5);
  CHECK(call({cand(7, 5)}, limits(genus, genus)) == unclassified_taxon);
}
