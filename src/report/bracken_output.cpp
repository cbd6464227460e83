#include "report/bracken_output.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "report/abundance.hpp"

namespace metawarp::report {

namespace {

const char* level_code(taxonomy::CanonicalRank rank) {
  using R = taxonomy::CanonicalRank;
  switch (rank) {
    case R::subspecies: return "S1";
    case R::species: return "S";
    case R::genus: return "G";
    case R::family: return "F";
    case R::order: return "O";
    case R::class_: return "C";
    case R::phylum: return "P";
    case R::kingdom: return "K";
    case R::domain: return "D";
    case R::root: return "R";
    case R::sequence: break;
  }
  return "-";
}

}  // namespace

std::string bracken_output(const taxonomy::Taxonomy& tax, const TaxonCounts& counts,
                           taxonomy::CanonicalRank rank, const EmEstimate& estimate) {
  const AtRank assigned = reads_at_rank(tax, counts, rank);
  struct Row {
    taxid_t taxid;
    std::uint64_t estimated;
  };
  std::vector<Row> rows;
  std::uint64_t total = 0;
  for (const auto& [taxid, reads] : estimate.reads) {
    const auto estimated = std::uint64_t(std::llround(reads));
    if (estimated == 0) continue;
    rows.push_back({taxid, estimated});
    total += estimated;
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& a, const Row& b) { return a.estimated > b.estimated; });
  std::string out =
      "name\ttaxonomy_id\ttaxonomy_lvl\tkraken_assigned_reads\tadded_reads\tnew_est_reads\t"
      "fraction_total_reads\n";
  for (const Row& row : rows) {
    const auto found = assigned.reads.find(row.taxid);
    const std::uint64_t kraken = found == assigned.reads.end() ? 0 : found->second;
    char numbers[128];
    std::snprintf(numbers, sizeof numbers, "\t%llu\t%lld\t%llu\t%.5f\n",
                  (unsigned long long)kraken, (long long)row.estimated - (long long)kraken,
                  (unsigned long long)row.estimated, double(row.estimated) / double(total));
    out += taxon_name(tax, row.taxid) + '\t' + std::to_string(row.taxid) + '\t' +
           level_code(rank) + numbers;
  }
  return out;
}

}  // namespace metawarp::report
