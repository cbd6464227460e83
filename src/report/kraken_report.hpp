#pragma once
// Kraken2's sample report (kraken2 --report), as its manual specifies: one
// line per taxon with a nonzero clade count, tab-separated:
//   percent of reads in the clade ("%6.2f"), reads in the clade, reads
//   assigned directly, rank code, taxid, name indented by two spaces per depth
// The "unclassified" line (taxid 0, code U) comes first when any read is
// unclassified; then the tree from the root, depth first, children by clade
// count descending (ties: lower taxid first).
// Rank codes: U, R (root), D (superkingdom/domain), K, P, C, O, F, G, S; a
// taxon without one of these ranks takes its parent's letter and one more
// than its parent's depth suffix (R1, D1, G1, S1, S2, ...). NCBI's ranks of
// 2025 keep the codes of the taxa they renamed: domain and acellular root
// (Viruses) are D, cellular root R1, a realm D1.
// With zero_counts (kraken2 --report-zero-counts) every taxon of the
// taxonomy is listed, and the unclassified line always comes first.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "report/taxon_counts.hpp"
#include "taxonomy/taxonomy.hpp"

namespace metawarp::report {

// One line of the report, in report order; the one tree walk that both the
// Kraken2 report and the MetaPhlAn-style report (mpa_report.hpp) print.
struct ReportLine {
  double percent = 0;       // of all reads
  std::uint64_t clade = 0;  // reads in the clade
  std::uint64_t direct = 0; // reads assigned to the taxon itself
  std::string code;         // "U", "R", "D", "D1", ...
  taxonomy::taxid_t taxid = taxonomy::no_taxon;
  std::size_t depth = 0;    // 0 for root and unclassified
  std::string name;
};

// Counts on taxa unknown to `tax` (or outside the root's tree) are treated
// as unclassified, so percentages still add up.
std::vector<ReportLine> report_lines(const taxonomy::Taxonomy& tax, const TaxonCounts& counts,
                                     bool zero_counts = false);
// `extra_columns`, when given, inserts its text for each line's taxon (0 for
// the unclassified line; tab-terminated) after the reads assigned directly
// (--report-minimizer-data: report/minimizer_data.hpp).
using ReportColumns = std::function<std::string(taxonomy::taxid_t)>;
std::string kraken_report(const std::vector<ReportLine>& lines,
                          const ReportColumns& extra_columns = {});
std::string kraken_report(const taxonomy::Taxonomy& tax, const TaxonCounts& counts,
                          bool zero_counts = false);

// The Kraken2 letter of an NCBI rank, or '\0' when it has none.
char kraken_rank_letter(taxonomy::Rank rank);

}  // namespace metawarp::report
