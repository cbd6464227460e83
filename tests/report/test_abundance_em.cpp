// The abundance EM on read/candidate sets whose answer follows by hand, its
// convergence, and its independence of read order and grouping; the table
// with the estimate for sample_tree.hpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "catch.hpp"
#include "report/abundance.hpp"
#include "report/abundance_em.hpp"
#include "sample_tree.hpp"
#include "near.hpp"

using metawarp::report::CandidateSets;
using metawarp::report::estimate_abundance;
using metawarp::taxonomy::CanonicalRank;
using metawarp::taxonomy::taxid_t;

namespace {

CandidateSets sets_of(const std::vector<std::pair<std::vector<taxid_t>, std::uint64_t>>& groups) {
  CandidateSets sets;
  for (const auto& [taxa, reads] : groups) sets.add(taxa, reads);
  return sets;
}

}  // namespace

TEST_CASE("EM splits shared reads in proportion to the unique evidence") {
  // 60 reads only A, 40 only B, 50 either: the fixed point gives A the share
  // p = (60 + 50 p) / 150, p = 0.6, so A 60 + 30 = 90 and B 40 + 20 = 60.
  const auto estimate = estimate_abundance(sets_of({{{1}, 60}, {{2}, 40}, {{1, 2}, 50}}));
  REQUIRE(estimate.converged);
  CHECK(estimate.total == 150);
  CHECK(near(estimate.reads.at(1), 90.0, 1e-4));
  CHECK(near(estimate.reads.at(2), 60.0, 1e-4));
}

TEST_CASE("EM empties a taxon that only shared reads name") {
  // C is named only next to A, which has unique reads: every step halves
  // C's share at least, so all 110 reads end at A.
  const auto estimate = estimate_abundance(sets_of({{{1}, 100}, {{1, 3}, 10}}));
  REQUIRE(estimate.converged);
  CHECK(near(estimate.reads.at(1), 110.0, 1e-3));
  CHECK(near(estimate.reads.at(3), 0.0, 1e-3));
}

TEST_CASE("EM with only shared reads keeps equal shares") {
  // Nothing tells A from B: the equal start is already the fixed point.
  const auto estimate = estimate_abundance(sets_of({{{5, 7}, 30}}));
  REQUIRE(estimate.converged);
  CHECK(estimate.iterations == 1);
  CHECK(estimate.reads.at(5) == 15.0);
  CHECK(estimate.reads.at(7) == 15.0);
}

TEST_CASE("EM keeps every read and stops at the iteration limit") {
  const auto sets = sets_of({{{1}, 7}, {{2}, 3}, {{1, 2}, 11}, {{2, 3}, 5}, {{1, 2, 3}, 2}});
  metawarp::report::EmOptions once;
  once.max_iterations = 1;
  once.tolerance = 0;
  const auto first = estimate_abundance(sets, once);
  CHECK_FALSE(first.converged);
  CHECK(first.iterations == 1);
  const auto full = estimate_abundance(sets);
  CHECK(full.converged);
  CHECK(full.iterations > 1);
  for (const auto* e : {&first, &full}) {
    double sum = 0;
    for (const auto& [taxid, reads] : e->reads) sum += reads;
    CHECK(near(sum, 28.0, 1e-12));
  }
}

TEST_CASE("EM result is the same bit for bit whatever the read order and grouping") {
  // One read per add in shuffled order, with shuffled and repeated taxa,
  // against the same reads added as counted groups.
  const std::vector<std::pair<std::vector<taxid_t>, std::uint64_t>> groups = {
      {{562}, 400}, {{623}, 250}, {{562, 623}, 300}, {{562, 623, 622}, 37}, {{10710, 562}, 19},
      {{10710}, 80}};
  std::vector<std::vector<taxid_t>> reads;
  for (const auto& [taxa, n] : groups)
    for (std::uint64_t i = 0; i < n; ++i) reads.push_back(taxa);
  std::mt19937 random(15);
  std::shuffle(reads.begin(), reads.end(), random);
  CandidateSets one_by_one;
  for (auto taxa : reads) {
    std::shuffle(taxa.begin(), taxa.end(), random);
    taxa.push_back(taxa.front());  // a taxon twice in one read counts once
    one_by_one.add(taxa);
  }
  const auto a = estimate_abundance(one_by_one);
  const auto b = estimate_abundance(sets_of(groups));
  CHECK(one_by_one.sets() == sets_of(groups).sets());
  CHECK(a.reads == b.reads);  // exact: the same sums in the same order
  CHECK(a.iterations == b.iterations);
}

TEST_CASE("abundance table with the EM's estimate and cell abundance") {
  // sample_tree's reads at species, plus the 5 reads at Escherichia (561)
  // with candidates in E. coli and Salmonella enterica. E. coli's share x of
  // the split: x = (40 + 5 x) / 75, x = 4/7: E. coli 40 + 20/7 = 42.86,
  // Salmonella 30 + 15/7 = 32.14. The 5 reads at Bacteria and root have no
  // candidate at species: 10 - 5 stay unassigned. Cells: reads / length
  // (5 Mb for the bacteria, 10 kb for the viruses), e.g. Some virus
  // 5e-4 / (42.857/5e6 + 32.143/5e6 + 2 * 5e-4) = 49.2611 %.
  CandidateSets sets = sets_of({{{562}, 40}, {{28901}, 30}, {{9999}, 5}, {{8888}, 5},
                                {{562, 28901}, 5}});
  const std::map<taxid_t, double> lengths = {
      {562, 5e6}, {28901, 5e6}, {9999, 1e4}, {8888, 1e4}};
  const std::string expected =
      "#taxon\ttaxid\treads\tpercent\testimated_reads\testimated_percent\tcell_percent\n"
      "Escherichia coli\t562\t40\t40.0000\t42.86\t42.8571\t0.8445\n"
      "Salmonella enterica\t28901\t30\t30.0000\t32.14\t32.1429\t0.6334\n"
      "Other virus\t8888\t5\t5.0000\t5.00\t5.0000\t49.2611\n"
      "Some virus\t9999\t5\t5.0000\t5.00\t5.0000\t49.2611\n"
      "unassigned at species\t-\t10\t10.0000\t5.00\t5.0000\t-\n"
      "unclassified\t0\t10\t10.0000\t10.00\t10.0000\t-\n";
  CHECK(metawarp::report::estimated_abundance_table(sample::tree(), sample::counts(),
                                                    CanonicalRank::species,
                                                    estimate_abundance(sets), lengths) ==
        expected);
}
