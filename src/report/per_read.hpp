#pragma once
// Per-read output lines.
//
// TSV (--output), one line per read or pair, after a header line:
//   #read_id  status  taxid  rank  name  [top_hits]
// status C or U; unclassified reads: taxid 0, rank "-", name "unclassified".
// rank is the NCBI rank of the assigned taxon ("no rank" where it has none).
// top_hits (--top-hits): the candidates best first as "target:hits" (target =
// reference sequence id), comma-separated, "-" when there are none.
//
// Kraken2 per-read format (--kraken-output), no header:
//   C/U  read_id  taxid  length  evidence
// length is "len" or "len1|len2" for pairs. evidence is Kraken2's column 5 in
// meaning: the read's features in order (mate 1's windows, then mate 2's; a
// window's features in sketch order, by hash) as runs "taxid:count",
// space-separated, where taxid is the feature's taxon (the LCA of the taxa
// of its locations; 0: not in the database); pairs write mate 1's runs, then
// "|:|", then mate 2's, all space-separated, as Kraken2 does: a mate without
// features adds no run ("562:4 |:|"), and a single read without any is "0:0".
// With use_names (kraken2 --use-names) the taxid column is "name (taxid N)",
// "unclassified (taxid 0)".
#include <cstdint>
#include <string>
#include <string_view>

#include "db/database.hpp"
#include "metawarp/classify/candidates.hpp"
#include "metawarp/classify/confidence.hpp"

namespace metawarp::report {

struct ReadCall {
  std::string_view id;
  std::uint64_t length1 = 0;
  std::uint64_t length2 = 0;
  bool paired = false;
  taxonomy::taxid_t taxid = taxonomy::no_taxon;  // no_taxon: unclassified
  const classify::Candidate* candidates = nullptr;
  std::uint32_t candidate_count = 0;
  // Evidence runs (taxids), mate 1's first: runs[0, mate1_runs).
  const classify::EvidenceRun* evidence = nullptr;
  std::uint32_t evidence_runs = 0;
  std::uint32_t mate1_runs = 0;
};

class ReadFormatter {
 public:
  // `db` must outlive the formatter.
  ReadFormatter(const db::Database& db, bool top_hits, bool use_names = false)
      : db_(db), top_hits_(top_hits), use_names_(use_names) {}

  std::string tsv_header() const;
  void append_tsv(std::string& out, const ReadCall& call) const;
  void append_kraken(std::string& out, const ReadCall& call) const;

 private:
  const db::Database& db_;
  bool top_hits_;
  bool use_names_;
};

}  // namespace metawarp::report
