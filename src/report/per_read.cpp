#include "report/per_read.hpp"

namespace metawarp::report {
namespace {

// Runs as "taxid:count", space-separated.
void append_runs(std::string& out, const classify::EvidenceRun* runs, std::uint32_t n) {
  for (std::uint32_t i = 0; i < n; ++i) {
    if (i > 0) out += ' ';
    out += std::to_string(runs[i].taxon);
    out += ':';
    out += std::to_string(runs[i].count);
  }
}

}  // namespace

std::string ReadFormatter::tsv_header() const {
  return top_hits_ ? "#read_id\tstatus\ttaxid\trank\tname\ttop_hits\n"
                   : "#read_id\tstatus\ttaxid\trank\tname\n";
}

void ReadFormatter::append_tsv(std::string& out, const ReadCall& call) const {
  out += call.id;
  const taxonomy::Node* node =
      call.taxid == taxonomy::no_taxon ? nullptr : db_.taxonomy.find(call.taxid);
  if (node) {
    out += "\tC\t";
    out += std::to_string(call.taxid);
    out += '\t';
    out += taxonomy::rank_name(node->rank);
    out += '\t';
    out += node->name;
  } else {
    out += "\tU\t0\t-\tunclassified";
  }
  if (top_hits_) {
    out += '\t';
    if (call.candidate_count == 0) out += '-';
    for (std::uint32_t i = 0; i < call.candidate_count; ++i) {
      if (i > 0) out += ',';
      const classify::Candidate& c = call.candidates[i];
      out += c.target < db_.targets.size() ? db_.targets[c.target].name : std::to_string(c.target);
      out += ':';
      out += std::to_string(c.hits);
    }
  }
  out += '\n';
}

void ReadFormatter::append_kraken(std::string& out, const ReadCall& call) const {
  const taxonomy::Node* node =
      call.taxid == taxonomy::no_taxon ? nullptr : db_.taxonomy.find(call.taxid);
  out += node ? "C\t" : "U\t";
  out += call.id;
  out += '\t';
  if (use_names_) {
    out += node ? std::string_view(node->name) : std::string_view("unclassified");
    out += " (taxid ";
  }
  out += std::to_string(node ? call.taxid : 0);
  if (use_names_) out += ')';
  out += '\t';
  out += std::to_string(call.length1);
  if (call.paired) {
    out += '|';
    out += std::to_string(call.length2);
  }
  out += '\t';
  if (!call.paired) {
    if (call.evidence_runs == 0) out += "0:0";
    append_runs(out, call.evidence, call.evidence_runs);
  } else {
    // Kraken2's tokens: mate 1's runs, "|:|", mate 2's, space-separated; a
    // mate without features adds none (so "|:|" alone for neither).
    const std::uint32_t mate2_runs = call.evidence_runs - call.mate1_runs;
    append_runs(out, call.evidence, call.mate1_runs);
    out += call.mate1_runs > 0 ? " |:|" : "|:|";
    if (mate2_runs > 0) out += ' ';
    append_runs(out, call.evidence + call.mate1_runs, mate2_runs);
  }
  out += '\n';
}

}  // namespace metawarp::report
