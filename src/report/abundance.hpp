#pragma once
// Abundance at one rank: reads assigned to a taxon or anywhere below it are
// summed at its ancestor of that rank. Tab-separated, header line first:
//   #taxon  taxid  reads  percent
// rows by reads descending (ties: lower taxid), percent of all reads with four
// decimals; then "unassigned at <rank>" (taxid "-": reads classified above
// the rank, or on a lineage without that rank) and "unclassified" (taxid 0),
// each only when nonzero.
//
// With the EM's estimate (--abundance-em, report/abundance_em.hpp) three
// columns follow:
//   estimated_reads  estimated_percent  cell_percent
// estimated_reads (two decimals): the taxon's expected reads, those called
// above the rank redistributed over the taxa of their candidates;
// estimated_percent: of all reads; cell_percent: estimated reads divided by
// the taxon's genome length (genome_lengths_at), in percent of that sum over
// the rows ("-" where a row has no length). Rows by estimated reads
// descending (ties: lower taxid), taxa with direct reads or an estimate of
// at least 0.005 reads. The
// "unassigned" row keeps, in the estimated columns, the reads no candidate
// places at the rank.
#include <map>
#include <string>

#include "db/database.hpp"
#include "report/abundance_em.hpp"
#include "report/taxon_counts.hpp"
#include "taxonomy/rank.hpp"
#include "taxonomy/taxonomy.hpp"

namespace metawarp::report {

// The taxon of `taxid` at `rank` (for `sequence`: taxid itself, merged ids
// resolved), no_taxon where its lineage has no taxon of that rank.
taxid_t taxon_at_rank(const taxonomy::Taxonomy& tax, taxid_t taxid, taxonomy::CanonicalRank rank);

// The taxon's name, or its number where the taxonomy lacks it.
std::string taxon_name(const taxonomy::Taxonomy& tax, taxid_t taxid);

// Reads per taxon at the rank (reads called at it or below), and the reads
// with no taxon there (called above it, or on a lineage without it).
struct AtRank {
  std::map<taxid_t, std::uint64_t> reads;
  std::uint64_t unassigned = 0;
};
AtRank reads_at_rank(const taxonomy::Taxonomy& tax, const TaxonCounts& counts,
                     taxonomy::CanonicalRank rank);

// rank `sequence` counts each assigned taxon as it is.
std::string abundance_table(const taxonomy::Taxonomy& tax, const TaxonCounts& counts,
                            taxonomy::CanonicalRank rank);

// Genome length per taxon at `rank`: a genome is the targets of one source
// file under one taxon at the rank (chromosomes and plasmids together); a
// taxon's length is the mean over its genomes.
std::map<taxid_t, double> genome_lengths_at(const db::Database& db,
                                            taxonomy::CanonicalRank rank);

std::string estimated_abundance_table(const taxonomy::Taxonomy& tax, const TaxonCounts& counts,
                                      taxonomy::CanonicalRank rank, const EmEstimate& estimate,
                                      const std::map<taxid_t, double>& genome_lengths);

}  // namespace metawarp::report
