#pragma once
// Reads per assigned taxon: the input of the Kraken2 report and the abundance table.
#include <cstdint>
#include <map>

#include "taxonomy/taxonomy.hpp"

namespace metawarp::report {

using taxonomy::taxid_t;

struct TaxonCounts {
  std::map<taxid_t, std::uint64_t> direct;  // reads assigned exactly to taxid
  std::uint64_t unclassified = 0;

  void add(taxid_t taxid, std::uint64_t reads = 1) {
    if (taxid == taxonomy::no_taxon) unclassified += reads;
    else direct[taxid] += reads;
  }
  std::uint64_t classified() const {
    std::uint64_t sum = 0;
    for (const auto& [taxid, reads] : direct) sum += reads;
    return sum;
  }
  std::uint64_t total() const { return classified() + unclassified; }
};

}  // namespace metawarp::report
