#pragma once
// --bracken-output: the estimate at one rank in the columns Bracken
// (est_abundance.py) writes, so that KrakenTools, Pavian and MultiQC read it
// where they read Bracken's:
//   name  taxonomy_id  taxonomy_lvl  kraken_assigned_reads  added_reads
//   new_est_reads  fraction_total_reads
// kraken_assigned_reads: reads called at the taxon or below it;
// new_est_reads: the estimate rounded to whole reads; added_reads their
// difference; fraction_total_reads (five decimals): of the estimated reads
// of all rows (Bracken's: of the reads placed at the rank). Rows: taxa with
// an estimate of at least one read, by estimate descending (ties: lower
// taxid). taxonomy_lvl is Kraken's rank letter (S, G, F, O, C, P, K, D;
// S1 for subspecies).
#include <string>

#include "report/abundance_em.hpp"
#include "report/taxon_counts.hpp"
#include "taxonomy/rank.hpp"
#include "taxonomy/taxonomy.hpp"

namespace metawarp::report {

std::string bracken_output(const taxonomy::Taxonomy& tax, const TaxonCounts& counts,
                           taxonomy::CanonicalRank rank, const EmEstimate& estimate);

}  // namespace metawarp::report
