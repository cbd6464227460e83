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
// than its parent's depth suffix (R1, D1, G1, S1, S2, ...).
#include <functional>
#include <string>

#include "report/taxon_counts.hpp"
#include "taxonomy/taxonomy.hpp"

namespace metawarp::report {

// Counts on taxa unknown to `tax` (or outside the root's tree) are treated
// as unclassified, so percentages still add up.
// `extra_columns`, when given, inserts its text for each line's taxon (0 for
// the unclassified line; tab-terminated) after the reads assigned directly
// (--report-minimizer-data: report/minimizer_data.hpp).
using ReportColumns = std::function<std::string(taxid_t)>;
std::string kraken_report(const taxonomy::Taxonomy& tax, const TaxonCounts& counts,
                          const ReportColumns& extra_columns = {});

// The Kraken2 letter of an NCBI rank, or '\0' when it has none.
char kraken_rank_letter(taxonomy::Rank rank);

}  // namespace metawarp::report
