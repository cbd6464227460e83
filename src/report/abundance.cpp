#include "report/abundance.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <utility>
#include <vector>

namespace metawarp::report {

namespace {

std::string percent_text(double part, double whole) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4f", whole <= 0 ? 0.0 : 100.0 * part / whole);
  return text;
}

void append_row(std::string& out, const std::string& name, const std::string& taxid,
                std::uint64_t reads, std::uint64_t total) {
  out += name + '\t' + taxid + '\t' + std::to_string(reads) + '\t' +
         percent_text(double(reads), double(total)) + '\n';
}

std::string unassigned_name(taxonomy::CanonicalRank rank) {
  return "unassigned at " + std::string(taxonomy::canonical_rank_name(rank));
}

}  // namespace

std::string taxon_name(const taxonomy::Taxonomy& tax, taxid_t taxid) {
  const taxonomy::Node* node = tax.find(taxid);
  return node ? node->name : std::to_string(taxid);
}

taxid_t taxon_at_rank(const taxonomy::Taxonomy& tax, taxid_t taxid,
                      taxonomy::CanonicalRank rank) {
  const taxid_t id = tax.resolve(taxid);
  if (id == taxonomy::no_taxon) return taxonomy::no_taxon;
  return rank == taxonomy::CanonicalRank::sequence ? id : tax.ranked_lineage(id).at(rank);
}

AtRank reads_at_rank(const taxonomy::Taxonomy& tax, const TaxonCounts& counts,
                     taxonomy::CanonicalRank rank) {
  AtRank result;
  for (const auto& [taxid, reads] : counts.direct) {
    const taxid_t ancestor = taxon_at_rank(tax, taxid, rank);
    if (ancestor == taxonomy::no_taxon) result.unassigned += reads;
    else result.reads[ancestor] += reads;
  }
  return result;
}

std::string abundance_table(const taxonomy::Taxonomy& tax, const TaxonCounts& counts,
                            taxonomy::CanonicalRank rank) {
  const AtRank at_rank = reads_at_rank(tax, counts, rank);
  std::vector<std::pair<taxid_t, std::uint64_t>> rows(at_rank.reads.begin(),
                                                      at_rank.reads.end());
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });

  const std::uint64_t total = counts.total();
  std::string out = "#taxon\ttaxid\treads\tpercent\n";
  for (const auto& [taxid, reads] : rows)
    append_row(out, taxon_name(tax, taxid), std::to_string(taxid), reads, total);
  if (at_rank.unassigned > 0)
    append_row(out, unassigned_name(rank), "-", at_rank.unassigned, total);
  if (counts.unclassified > 0)
    append_row(out, "unclassified", "0", counts.unclassified, total);
  return out;
}

std::map<taxid_t, double> genome_lengths_at(const db::Database& db,
                                            taxonomy::CanonicalRank rank) {
  std::map<std::pair<std::string, taxid_t>, std::uint64_t> genomes;
  for (const db::Target& target : db.targets) {
    const taxid_t taxon = taxon_at_rank(db.taxonomy, target.taxid, rank);
    if (taxon != taxonomy::no_taxon) genomes[{target.source_file, taxon}] += target.length;
  }
  std::map<taxid_t, std::pair<double, std::uint64_t>> sums;  // summed length, genomes
  for (const auto& [key, length] : genomes) {
    auto& [sum, n] = sums[key.second];
    sum += double(length);
    ++n;
  }
  std::map<taxid_t, double> result;
  for (const auto& [taxon, sum_n] : sums) result[taxon] = sum_n.first / double(sum_n.second);
  return result;
}

std::string estimated_abundance_table(const taxonomy::Taxonomy& tax, const TaxonCounts& counts,
                                      taxonomy::CanonicalRank rank, const EmEstimate& estimate,
                                      const std::map<taxid_t, double>& genome_lengths) {
  const AtRank at_rank = reads_at_rank(tax, counts, rank);
  std::set<taxid_t> taxa;
  for (const auto& [taxid, reads] : at_rank.reads) taxa.insert(taxid);
  for (const auto& [taxid, reads] : estimate.reads) taxa.insert(taxid);
  struct Row {
    taxid_t taxid;
    std::uint64_t reads;
    double estimated;
  };
  std::vector<Row> rows;
  double cells = 0;
  for (const taxid_t taxid : taxa) {
    const auto direct = at_rank.reads.find(taxid);
    const auto estimated = estimate.reads.find(taxid);
    Row row{taxid, direct == at_rank.reads.end() ? 0 : direct->second,
            estimated == estimate.reads.end() ? 0.0 : estimated->second};
    // A taxon the EM emptied (below half a hundredth of a read) and that no
    // read was called to is not a row.
    if (row.reads == 0 && row.estimated < 0.005) continue;
    const auto length = genome_lengths.find(taxid);
    if (length != genome_lengths.end() && length->second > 0) cells += row.estimated / length->second;
    rows.push_back(row);
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& a, const Row& b) { return a.estimated > b.estimated; });

  const std::uint64_t total = counts.total();
  auto estimated_columns = [&](double estimated, const std::string& cell) {
    char reads[32];
    std::snprintf(reads, sizeof reads, "%.2f", estimated);
    return std::string("\t") + reads + '\t' + percent_text(estimated, double(total)) + '\t' +
           cell + '\n';
  };
  std::string out =
      "#taxon\ttaxid\treads\tpercent\testimated_reads\testimated_percent\tcell_percent\n";
  for (const Row& row : rows) {
    const auto length = genome_lengths.find(row.taxid);
    const std::string cell = length != genome_lengths.end() && length->second > 0
                                 ? percent_text(row.estimated / length->second, cells)
                                 : "-";
    out += taxon_name(tax, row.taxid) + '\t' + std::to_string(row.taxid) + '\t' +
           std::to_string(row.reads) + '\t' + percent_text(double(row.reads), double(total)) +
           estimated_columns(row.estimated, cell);
  }
  const std::uint64_t classified = total - counts.unclassified;
  const std::uint64_t left = classified > estimate.total ? classified - estimate.total : 0;
  if (at_rank.unassigned > 0 || left > 0)
    out += unassigned_name(rank) + "\t-\t" + std::to_string(at_rank.unassigned) + '\t' +
           percent_text(double(at_rank.unassigned), double(total)) +
           estimated_columns(double(left), "-");
  if (counts.unclassified > 0)
    out += "unclassified\t0\t" + std::to_string(counts.unclassified) + '\t' +
           percent_text(double(counts.unclassified), double(total)) +
           estimated_columns(double(counts.unclassified), "-");
  return out;
}

}  // namespace metawarp::report
