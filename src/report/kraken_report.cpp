#include "report/kraken_report.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <unordered_map>
#include <vector>

namespace metawarp::report {

using taxonomy::Rank;

char kraken_rank_letter(Rank rank) {
  switch (rank) {
    // NCBI's top ranks since 2025: "domain" for Bacteria, Archaea and
    // Eukaryota (superkingdom before), "acellular root" for Viruses (a
    // superkingdom before). Both are D, as they were, so a report (and
    // Bracken's `-l D`) reads the same on either taxonomy. "cellular root"
    // (cellular organisms, "no rank" before) and "realm" (virus realms,
    // "clade" before) take no letter, as before: R1 and D1.
    case Rank::superkingdom:
    case Rank::domain:
    case Rank::acellular_root: return 'D';
    case Rank::kingdom: return 'K';
    case Rank::phylum: return 'P';
    case Rank::class_: return 'C';
    case Rank::order: return 'O';
    case Rank::family: return 'F';
    case Rank::genus: return 'G';
    case Rank::species: return 'S';
    default: return '\0';
  }
}

namespace {

void append_line(std::string& out, const ReportLine& line, const ReportColumns& extra) {
  char buffer[96];
  std::snprintf(buffer, sizeof buffer, "%6.2f\t%" PRIu64 "\t%" PRIu64 "\t", line.percent,
                line.clade, line.direct);
  out += buffer;
  if (extra) out += extra(line.taxid);
  out += line.code;
  out += '\t';
  out += std::to_string(line.taxid);
  out += '\t';
  out.append(2 * line.depth, ' ');
  out += line.name;
  out += '\n';
}

class ReportWriter {
 public:
  ReportWriter(const taxonomy::Taxonomy& tax, const TaxonCounts& counts, bool zero_counts)
      : tax_(tax), zero_counts_(zero_counts) {
    for (const auto& node : tax.nodes())
      if (node.id != node.parent) children_[node.parent].push_back(node.id);
    for (const auto& [taxid, reads] : counts.direct) {
      const taxid_t id = tax.resolve(taxid);
      const auto lineage = tax.lineage(id);
      if (id == taxonomy::no_taxon || lineage.empty() ||
          lineage.back() != taxonomy::root_taxon) {
        lost_ += reads;  // not in the tree: reported as unclassified
        continue;
      }
      direct_[id] += reads;
      for (taxid_t ancestor : lineage) clade_[ancestor] += reads;
    }
    total_ = counts.total();
    unclassified_ = counts.unclassified + lost_;
  }

  std::vector<ReportLine> lines() {
    std::vector<ReportLine> out;
    if (unclassified_ > 0 || zero_counts_)
      out.push_back({percent(unclassified_), unclassified_, unclassified_, "U",
                     taxonomy::no_taxon, 0, "unclassified"});
    if (tax_.find(taxonomy::root_taxon) != nullptr)
      visit(out, taxonomy::root_taxon, 'R', 0, 0);
    return out;
  }

 private:
  double percent(std::uint64_t reads) const {
    return total_ == 0 ? 0.0 : 100.0 * double(reads) / double(total_);
  }
  std::uint64_t clade(taxid_t id) const {
    auto it = clade_.find(id);
    return it == clade_.end() ? 0 : it->second;
  }

  // letter/suffix: this node's code as computed by its parent's rules.
  void visit(std::vector<ReportLine>& out, taxid_t id, char letter, unsigned suffix,
             std::size_t depth) {
    const std::uint64_t reads = clade(id);
    if (reads == 0 && !zero_counts_) return;
    const auto direct = direct_.find(id);
    std::string code(1, letter);
    if (suffix > 0) code += std::to_string(suffix);
    out.push_back({percent(reads), reads, direct == direct_.end() ? 0 : direct->second,
                   std::move(code), id, depth, tax_.find(id)->name});

    auto it = children_.find(id);
    if (it == children_.end()) return;
    std::vector<taxid_t> kids = it->second;
    std::sort(kids.begin(), kids.end(), [&](taxid_t a, taxid_t b) {
      const std::uint64_t ca = clade(a), cb = clade(b);
      return ca != cb ? ca > cb : a < b;
    });
    for (taxid_t kid : kids) {
      const char own = kraken_rank_letter(tax_.find(kid)->rank);
      if (own != '\0') visit(out, kid, own, 0, depth + 1);
      else visit(out, kid, letter, suffix + 1, depth + 1);
    }
  }

  const taxonomy::Taxonomy& tax_;
  bool zero_counts_;  // every taxon, also those without reads
  std::unordered_map<taxid_t, std::vector<taxid_t>> children_;
  std::unordered_map<taxid_t, std::uint64_t> direct_;
  std::unordered_map<taxid_t, std::uint64_t> clade_;
  std::uint64_t total_ = 0;
  std::uint64_t unclassified_ = 0;
  std::uint64_t lost_ = 0;
};

}  // namespace

std::vector<ReportLine> report_lines(const taxonomy::Taxonomy& tax, const TaxonCounts& counts,
                                     bool zero_counts) {
  return ReportWriter(tax, counts, zero_counts).lines();
}

std::string kraken_report(const std::vector<ReportLine>& lines, const ReportColumns& extra_columns) {
  std::string out;
  for (const ReportLine& line : lines) append_line(out, line, extra_columns);
  return out;
}

std::string kraken_report(const taxonomy::Taxonomy& tax, const TaxonCounts& counts,
                          bool zero_counts) {
  return kraken_report(report_lines(tax, counts, zero_counts));
}

}  // namespace metawarp::report
