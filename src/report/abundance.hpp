#pragma once
// Abundance at one rank: reads assigned to a taxon or anywhere below it are
// summed at its ancestor of that rank. Tab-separated, header line first:
//   #taxon  taxid  reads  percent
// rows by reads descending (ties: lower taxid), percent of all reads with four
// decimals; then "unassigned at <rank>" (taxid "-": reads classified above
// the rank, or on a lineage without that rank) and "unclassified" (taxid 0),
// each only when nonzero.
#include <string>

#include "report/taxon_counts.hpp"
#include "taxonomy/rank.hpp"
#include "taxonomy/taxonomy.hpp"

namespace metawarp::report {

// rank `sequence` counts each assigned taxon as it is.
std::string abundance_table(const taxonomy::Taxonomy& tax, const TaxonCounts& counts,
                            taxonomy::CanonicalRank rank);

}  // namespace metawarp::report
