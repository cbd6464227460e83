// Abundance tables against counts worked out by hand for sample_tree.hpp.
#include "catch.hpp"
#include "report/abundance.hpp"
#include "sample_tree.hpp"

using metawarp::report::abundance_table;
using metawarp::taxonomy::CanonicalRank;

TEST_CASE("abundance at species sums reads below and sets aside reads above") {
  // E. coli: 35 direct + 5 on a substrain; 561 (5), Bacteria (2) and root (3)
  // sit above species.
  const std::string expected =
      "#taxon\ttaxid\treads\tpercent\n"
      "Escherichia coli\t562\t40\t40.0000\n"
      "Salmonella enterica\t28901\t30\t30.0000\n"
      "Other virus\t8888\t5\t5.0000\n"
      "Some virus\t9999\t5\t5.0000\n"
      "unassigned at species\t-\t10\t10.0000\n"
      "unclassified\t0\t10\t10.0000\n";
  CHECK(abundance_table(sample::tree(), sample::counts(), CanonicalRank::species) == expected);
}

TEST_CASE("abundance at genus") {
  // Viruses' species have no genus: their 10 reads are unassigned at genus.
  const std::string expected =
      "#taxon\ttaxid\treads\tpercent\n"
      "Escherichia\t561\t45\t45.0000\n"
      "Salmonella\t590\t30\t30.0000\n"
      "unassigned at genus\t-\t15\t15.0000\n"
      "unclassified\t0\t10\t10.0000\n";
  CHECK(abundance_table(sample::tree(), sample::counts(), CanonicalRank::genus) == expected);
}
