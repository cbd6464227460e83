#include "report/abundance.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

namespace metawarp::report {

namespace {

void append_row(std::string& out, const std::string& name, const std::string& taxid,
                std::uint64_t reads, std::uint64_t total) {
  char percent[32];
  std::snprintf(percent, sizeof percent, "%.4f",
                total == 0 ? 0.0 : 100.0 * double(reads) / double(total));
  out += name + '\t' + taxid + '\t' + std::to_string(reads) + '\t' + percent + '\n';
}

}  // namespace

std::string abundance_table(const taxonomy::Taxonomy& tax, const TaxonCounts& counts,
                            taxonomy::CanonicalRank rank) {
  std::map<taxid_t, std::uint64_t> at_rank;
  std::uint64_t unassigned = 0;
  for (const auto& [taxid, reads] : counts.direct) {
    const taxid_t id = tax.resolve(taxid);
    taxid_t ancestor = taxonomy::no_taxon;
    if (id != taxonomy::no_taxon)
      ancestor = rank == taxonomy::CanonicalRank::sequence ? id
                                                           : tax.ranked_lineage(id).at(rank);
    if (ancestor == taxonomy::no_taxon) unassigned += reads;
    else at_rank[ancestor] += reads;
  }
  std::vector<std::pair<taxid_t, std::uint64_t>> rows(at_rank.begin(), at_rank.end());
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });

  const std::uint64_t total = counts.total();
  std::string out = "#taxon\ttaxid\treads\tpercent\n";
  for (const auto& [taxid, reads] : rows) {
    const taxonomy::Node* node = tax.find(taxid);
    append_row(out, node ? node->name : std::to_string(taxid), std::to_string(taxid), reads,
               total);
  }
  if (unassigned > 0)
    append_row(out, "unassigned at " + std::string(taxonomy::canonical_rank_name(rank)), "-",
               unassigned, total);
  if (counts.unclassified > 0)
    append_row(out, "unclassified", "0", counts.unclassified, total);
  return out;
}

}  // namespace metawarp::report
