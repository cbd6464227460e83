// The report variants Kraken2 users ask for (--report-zero-counts,
// --use-mpa-style), the rank codes of NCBI's 2025 ranks, and the shape that
// report readers expect, on the hand-checked sample of sample_tree.hpp.
#include "catch.hpp"
#include "report/kraken_report.hpp"
#include "report/minimizer_data.hpp"
#include "report/mpa_report.hpp"
#include "report/per_read.hpp"
#include "report_shape.hpp"
#include "sample_tree.hpp"

using namespace metawarp::report;
using namespace metawarp::taxonomy;

namespace {

// sample_tree.hpp's tree as NCBI ranks it since 2025, with a virus realm
// (a "clade" before) between Viruses and its species.
Taxonomy tree_2025(bool new_ranks) {
  std::vector<Node> nodes = sample::tree().nodes();
  for (Node& n : nodes) {
    if (n.id == 131567 && new_ranks) n.rank = Rank::cellular_root;
    if (n.id == 2 && new_ranks) n.rank = Rank::domain;
    if (n.id == 10239 && new_ranks) n.rank = Rank::acellular_root;
    if (n.id == 9999 || n.id == 8888) n.parent = 2559587;
  }
  nodes.push_back({2559587, 10239, new_ranks ? Rank::realm : Rank::clade, "Riboviria"});
  return Taxonomy::from_nodes(std::move(nodes));
}

}  // namespace

TEST_CASE("NCBI's 2025 ranks keep the rank codes of the taxa they renamed") {
  const std::string old_report = kraken_report(tree_2025(false), sample::counts());
  const std::string new_report = kraken_report(tree_2025(true), sample::counts());
  CHECK(new_report == old_report);
  CHECK(new_report.find("\tR1\t131567\t  cellular organisms\n") != std::string::npos);
  CHECK(new_report.find("\tD\t2\t    Bacteria\n") != std::string::npos);
  CHECK(new_report.find("\tD\t10239\t  Viruses\n") != std::string::npos);
  CHECK(new_report.find("\tD1\t2559587\t    Riboviria\n") != std::string::npos);
}

TEST_CASE("--report-zero-counts lists every taxon, the unclassified line first") {
  TaxonCounts c;
  c.add(562, 4);  // no unclassified reads
  const std::string report = kraken_report(sample::tree(), c, true);
  const auto lines = report_lines(sample::tree(), c, true);
  CHECK(lines.size() == sample::tree().size() + 1);  // every taxon and "unclassified"
  CHECK(report.rfind("  0.00\t0\t0\tU\t0\tunclassified\n100.00\t4\t0\tR\t1\troot\n", 0) == 0);
  // Shigella has no reads: listed with zeros, after Escherichia (more reads).
  CHECK(report.find("  0.00\t0\t0\tG\t620\t              Shigella\n") != std::string::npos);
  CHECK(report.find("Escherichia\n") < report.find("Shigella\n"));
  CHECK(report_shape::check_kraken_report(report).empty());
  // Without the option, the taxa without reads are left out.
  CHECK(kraken_report(sample::tree(), c).find("Shigella") == std::string::npos);
}

TEST_CASE("--use-mpa-style: the report as Kraken2 2.1.2 writes it") {
  // Kraken2's reports.cc (MpaReportDFS): superkingdom (here also domain and
  // acellular root, code D) is "d__", kingdom "k__"; names as they are,
  // spaces kept; only taxa of the eight main ranks, in the report's order.
  const std::string expected =
      "d__Bacteria\t77\n"
      "d__Bacteria|p__Proteobacteria\t75\n"
      "d__Bacteria|p__Proteobacteria|c__Gammaproteobacteria\t75\n"
      "d__Bacteria|p__Proteobacteria|c__Gammaproteobacteria|o__Enterobacterales\t75\n"
      "d__Bacteria|p__Proteobacteria|c__Gammaproteobacteria|o__Enterobacterales|"
      "f__Enterobacteriaceae\t75\n"
      "d__Bacteria|p__Proteobacteria|c__Gammaproteobacteria|o__Enterobacterales|"
      "f__Enterobacteriaceae|g__Escherichia\t45\n"
      "d__Bacteria|p__Proteobacteria|c__Gammaproteobacteria|o__Enterobacterales|"
      "f__Enterobacteriaceae|g__Escherichia|s__Escherichia coli\t40\n"
      "d__Bacteria|p__Proteobacteria|c__Gammaproteobacteria|o__Enterobacterales|"
      "f__Enterobacteriaceae|g__Salmonella\t30\n"
      "d__Bacteria|p__Proteobacteria|c__Gammaproteobacteria|o__Enterobacterales|"
      "f__Enterobacteriaceae|g__Salmonella|s__Salmonella enterica\t30\n"
      "d__Viruses\t10\n"
      "d__Viruses|s__Other virus\t5\n"
      "d__Viruses|s__Some virus\t5\n";
  const std::string mpa = mpa_report(report_lines(sample::tree(), sample::counts()));
  CHECK(mpa == expected);
  CHECK(report_shape::check_mpa_report(mpa).empty());
  // With zero counts, Shigella appears with 0 reads.
  const std::string zero = mpa_report(report_lines(sample::tree(), sample::counts(), true));
  CHECK(zero.find("|g__Shigella\t0\n") != std::string::npos);
  CHECK(report_shape::check_mpa_report(zero).empty());
  // A kingdom is "k__", below its domain.
  std::vector<Node> nodes = sample::tree().nodes();
  nodes.push_back({33090, 2, Rank::kingdom, "Plantae-like"});
  TaxonCounts c;
  c.add(33090, 1);
  CHECK(mpa_report(report_lines(Taxonomy::from_nodes(std::move(nodes)), c)) ==
        "d__Bacteria\t1\nd__Bacteria|k__Plantae-like\t1\n");
}

TEST_CASE("Report readers' expectations: 6 columns, rank codes, unclassified then root") {
  CHECK(report_shape::check_kraken_report(kraken_report(sample::tree(), sample::counts())) == "");
  CHECK(report_shape::check_kraken_report(kraken_report(tree_2025(true), sample::counts())) == "");
  // The checker itself finds what readers reject.
  CHECK(report_shape::check_kraken_report(" 10.00\t10\t10\tU\t0\tunclassified\n") == "");
  CHECK(report_shape::check_kraken_report("100.00\t1\t1\tR\t1\troot\textra\n") != "");
  CHECK(report_shape::check_kraken_report("100.00\t1\t1\t\t1\troot\n") != "");
  CHECK(report_shape::check_kraken_report("100.00\t1\t1\tR\t1\troot\n100.00\t1\t1\tD\t2\t"
                                          "      Bacteria\n") != "");
  CHECK(report_shape::check_kraken_report("100.00\t1\t0\tD\t2\tBacteria\n") != "");
  CHECK(report_shape::check_mpa_report("d__Bacteria|p__X\t1\n") != "");
  CHECK(report_shape::check_mpa_report("d__Bacteria\t1\nd__Bacteria|x__A b\t1\n") != "");
}

TEST_CASE("--use-names: the Kraken2 per-read taxid as 'name (taxid N)'") {
  metawarp::db::Database db;
  db.taxonomy = sample::tree();
  metawarp::report::ReadCall call;
  call.id = "r1";
  call.length1 = 150;
  call.taxid = 562;
  std::string named, plain;
  metawarp::report::ReadFormatter(db, false, true).append_kraken(named, call);
  metawarp::report::ReadFormatter(db, false).append_kraken(plain, call);
  CHECK(named.rfind("C\tr1\tEscherichia coli (taxid 562)\t150\t", 0) == 0);
  CHECK(plain.rfind("C\tr1\t562\t150\t", 0) == 0);
  // Everything after the taxid column is the same with and without names.
  CHECK(named.substr(named.find("\t150\t")) == plain.substr(plain.find("\t150\t")));
  named.clear();
  call.taxid = 0;
  metawarp::report::ReadFormatter(db, false, true).append_kraken(named, call);
  CHECK(named.rfind("U\tr1\tunclassified (taxid 0)\t150\t", 0) == 0);
}

TEST_CASE("--report-minimizer-data: Kraken2's columns, minimizers and distinct ones per clade") {
  // Kraken2's reports.cc: after the clade's and the taxon's reads, the clade's
  // minimizer hits (each feature of every read whose feature taxon lies in
  // the clade, as often as the reads hold it) and the distinct ones among
  // them; unclassified 0 and 0.
  metawarp::report::FeatureTally tally;
  const std::vector<std::pair<metawarp::sketch::feature_t, metawarp::taxonomy::taxid_t>> read1 =
      {{11, 562}, {12, 562}, {13, 2}};
  const std::vector<std::pair<metawarp::sketch::feature_t, metawarp::taxonomy::taxid_t>> read2 =
      {{11, 562}, {14, 28901}, {15, 511145}};
  tally.add(read1);
  tally.add(read2);
  const metawarp::report::MinimizerData data =
      metawarp::report::clade_minimizer_data(sample::tree(), tally);
  CHECK(data.columns(511145) == "1\t1\t");
  CHECK(data.columns(562) == "4\t3\t");    // 11 twice, 12, and 15 below it
  CHECK(data.columns(561) == "4\t3\t");
  CHECK(data.columns(590) == "1\t1\t");
  CHECK(data.columns(2) == "6\t5\t");
  CHECK(data.columns(1) == "6\t5\t");
  CHECK(data.columns(10239) == "0\t0\t");  // a clade without features
  CHECK(data.columns(0) == "0\t0\t");      // the unclassified line
  const std::string report =
      kraken_report(report_lines(sample::tree(), sample::counts()),
                    [&](metawarp::taxonomy::taxid_t taxid) { return data.columns(taxid); });
  CHECK(report.find(" 40.00\t40\t35\t4\t3\tS\t562\t") != std::string::npos);
  CHECK(report.rfind(" 10.00\t10\t10\t0\t0\tU\t0\tunclassified\n", 0) == 0);
}
