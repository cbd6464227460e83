// The Kraken2 report against a report computed by hand for sample_tree.hpp.
#include "catch.hpp"
#include "report/kraken_report.hpp"
#include "sample_tree.hpp"

using namespace metawarp::report;

TEST_CASE("Kraken2 report of a hand-checked sample") {
  // Clades: E. coli 35+5 = 40, Escherichia 45, Enterobacteriaceae 75,
  // Bacteria 77, Viruses 10, root 77+10+3 = 90; unclassified 10.
  // Equal Viruses species (5 each) are ordered by taxid; Shigella (0) is omitted.
  const std::string expected =
      " 10.00\t10\t10\tU\t0\tunclassified\n"
      " 90.00\t90\t3\tR\t1\troot\n"
      " 77.00\t77\t0\tR1\t131567\t  cellular organisms\n"
      " 77.00\t77\t2\tD\t2\t    Bacteria\n"
      " 75.00\t75\t0\tP\t1224\t      Proteobacteria\n"
      " 75.00\t75\t0\tC\t1236\t        Gammaproteobacteria\n"
      " 75.00\t75\t0\tO\t91347\t          Enterobacterales\n"
      " 75.00\t75\t0\tF\t543\t            Enterobacteriaceae\n"
      " 45.00\t45\t5\tG\t561\t              Escherichia\n"
      " 40.00\t40\t35\tS\t562\t                Escherichia coli\n"
      "  5.00\t5\t0\tS1\t83333\t                  Escherichia coli K-12\n"
      "  5.00\t5\t5\tS2\t511145\t                    Escherichia coli str. K-12 substr. MG1655\n"
      " 30.00\t30\t0\tG\t590\t              Salmonella\n"
      " 30.00\t30\t30\tS\t28901\t                Salmonella enterica\n"
      " 10.00\t10\t0\tD\t10239\t  Viruses\n"
      "  5.00\t5\t5\tS\t8888\t    Other virus\n"
      "  5.00\t5\t5\tS\t9999\t    Some virus\n";
  CHECK(kraken_report(sample::tree(), sample::counts()) == expected);
}

TEST_CASE("Kraken2 report: rounding, no unclassified line, unknown taxa") {
  const auto tax = sample::tree();
  TaxonCounts c;
  c.add(562, 1);
  c.add(28901, 2);
  // 1/3 and 2/3 of the reads; no unclassified reads, so no U line.
  const std::string report = kraken_report(tax, c);
  CHECK(report.rfind("100.00\t3\t0\tR\t1\troot\n", 0) == 0);
  CHECK(report.find("\tU\t") == std::string::npos);
  CHECK(report.find(" 33.33\t1\t1\tS\t562\t") != std::string::npos);
  CHECK(report.find(" 66.67\t2\t0\tF\t543\t") == std::string::npos);  // 543 holds all 3
  CHECK(report.find("100.00\t3\t0\tF\t543\t") != std::string::npos);
  CHECK(report.find(" 66.67\t2\t2\tS\t28901\t") != std::string::npos);

  // A taxid the taxonomy does not know counts as unclassified.
  c.add(424242, 1);
  CHECK(kraken_report(tax, c).rfind(" 25.00\t1\t1\tU\t0\tunclassified\n", 0) == 0);

  // Nothing at all: an empty report.
  CHECK(kraken_report(tax, TaxonCounts{}).empty());
}
