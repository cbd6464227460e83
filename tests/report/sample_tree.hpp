#pragma once
// A small NCBI-like tree and read counts whose Kraken2 report and abundance
// tables were worked out by hand (100 reads in all, so counts are percents).
#include "report/taxon_counts.hpp"
#include "taxonomy/taxonomy.hpp"

namespace sample {

using metawarp::taxonomy::Node;
using metawarp::taxonomy::Rank;

inline metawarp::taxonomy::Taxonomy tree() {
  return metawarp::taxonomy::Taxonomy::from_nodes({
      {1, 1, Rank::none, "root"},
      {131567, 1, Rank::none, "cellular organisms"},
      {2, 131567, Rank::superkingdom, "Bacteria"},
      {1224, 2, Rank::phylum, "Proteobacteria"},
      {1236, 1224, Rank::class_, "Gammaproteobacteria"},
      {91347, 1236, Rank::order, "Enterobacterales"},
      {543, 91347, Rank::family, "Enterobacteriaceae"},
      {561, 543, Rank::genus, "Escherichia"},
      {562, 561, Rank::species, "Escherichia coli"},
      {83333, 562, Rank::strain, "Escherichia coli K-12"},
      {511145, 83333, Rank::none, "Escherichia coli str. K-12 substr. MG1655"},
      {620, 543, Rank::genus, "Shigella"},  // no reads: must not appear
      {590, 543, Rank::genus, "Salmonella"},
      {28901, 590, Rank::species, "Salmonella enterica"},
      {10239, 1, Rank::superkingdom, "Viruses"},
      {9999, 10239, Rank::species, "Some virus"},
      {8888, 10239, Rank::species, "Other virus"},
  });
}

inline metawarp::report::TaxonCounts counts() {
  metawarp::report::TaxonCounts c;
  c.add(0, 10);  // unclassified
  c.add(1, 3);
  c.add(2, 2);
  c.add(561, 5);
  c.add(562, 35);
  c.add(511145, 5);
  c.add(28901, 30);
  c.add(9999, 5);
  c.add(8888, 5);
  return c;
}

}  // namespace sample
