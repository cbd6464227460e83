// --confidence on a hand-built tree: the threshold's edges (exactly F passes,
// a millionth more does not), climbing, the rank limits and unclassified.
#include <vector>

#include "catch.hpp"
#include "metawarp/classify/confidence.hpp"

using namespace metawarp::classify;

namespace {

// Nodes (taxids are node * 100 in the lineage of taxids):
// 1 root; 2 domain; 3 family; 4 genus A; 5 genus B; 6 species A1;
// 7 species A2; 8 a "no rank" strain of A1; 9 species B1; 10 a second root.
const std::vector<taxon_node_t> parent{0, 1, 1, 2, 3, 3, 4, 4, 6, 5, 10};
const std::vector<std::uint32_t> depth{0, 0, 1, 2, 3, 3, 4, 4, 5, 4, 0};
const TaxonTree tree{parent.data(), depth.data()};

// Levels: 0 sequence, 2 species, 3 genus, 4 family, 9 domain, 10 root.
TargetLineage strain_lineage(std::uint32_t scale) {
  TargetLineage l;
  l.ids[0] = 8 * scale;
  l.ids[2] = 6 * scale;
  l.ids[3] = 4 * scale;
  l.ids[4] = 3 * scale;
  l.ids[9] = 2 * scale;
  l.ids[10] = 1 * scale;
  return l;
}
const TargetLineage nodes = strain_lineage(1);
const TargetLineage taxa = strain_lineage(100);

// 8 features: 2 of the strain, 1 of species A2, 1 absent, 2 of species B1,
// 2 of genus A. Clades: strain 2, species A1 2, genus A 5, family 7,
// domain 7, root 7 (the absent one in none).
const std::vector<EvidenceRun> runs{{8, 2}, {7, 1}, {0, 1}, {9, 2}, {4, 2}};

taxid_t call(taxid_t assigned, double f, AssignParams p = {},
             const std::vector<EvidenceRun>& evidence = runs) {
  return confident_taxon(assigned, taxa, nodes, evidence.data(), std::uint32_t(evidence.size()),
                         std::uint32_t(f * confidence_scale + 0.5), tree, p);
}

}  // namespace

TEST_CASE("confidence 0 keeps the call") {
  CHECK(call(800, 0) == 800);
  CHECK(call(unclassified_taxon, 0.5) == unclassified_taxon);
}

TEST_CASE("the lowest taxon whose clade holds F of the features") {
  CHECK(call(800, 0.25) == 800);       // 2 of 8: exactly F
  CHECK(call(800, 0.250001) == 400);   // species A1 holds no more: genus A (5 of 8)
  CHECK(call(800, 0.625) == 400);
  CHECK(call(800, 0.625001) == 300);   // family: 7 of 8
  CHECK(call(800, 0.875) == 300);
  CHECK(call(800, 0.875001) == unclassified_taxon);  // not even the root: 7 of 8
  CHECK(call(400, 0.5) == 400);        // a call at the genus climbs from there
  CHECK(call(400, 0.7) == 300);
}

TEST_CASE("the rank limits apply to the lifted call") {
  AssignParams p;
  p.highest = 3;  // genus
  CHECK(call(800, 0.6, p) == 400);
  CHECK(call(800, 0.7, p) == unclassified_taxon);  // family is above --highest
}

TEST_CASE("features of another tree count in the total only") {
  const std::vector<EvidenceRun> evidence{{8, 3}, {10, 1}};
  CHECK(call(800, 0.75, {}, evidence) == 800);
  CHECK(call(800, 0.76, {}, evidence) == unclassified_taxon);
}

TEST_CASE("a read without evidence in the database") {
  const std::vector<EvidenceRun> evidence{{0, 5}};
  CHECK(call(800, 0.01, {}, evidence) == unclassified_taxon);
}
