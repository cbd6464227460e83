// Per-read TSV and Kraken2 per-read lines for hand-built calls.
#include "catch.hpp"
#include "report/per_read.hpp"
#include "sample_tree.hpp"

using metawarp::classify::Candidate;
using metawarp::report::ReadCall;
using metawarp::report::ReadFormatter;

namespace {

metawarp::db::Database sample_db() {
  metawarp::db::Database db;
  db.taxonomy = sample::tree();
  db.targets.resize(2);
  db.targets[0].name = "NC_000913.3";
  db.targets[0].taxid = 511145;
  db.targets[1].name = "NC_003197.2";
  db.targets[1].taxid = 28901;
  return db;
}

}  // namespace

TEST_CASE("per-read TSV") {
  const auto db = sample_db();
  const Candidate top[2] = {{0, 3, 5, 12}, {1, 0, 1, 4}};
  ReadCall call;
  call.id = "read1";
  call.length1 = 150;
  call.taxid = 562;
  call.candidates = top;
  call.candidate_count = 2;

  std::string out;
  ReadFormatter(db, false).append_tsv(out, call);
  CHECK(out == "read1\tC\t562\tspecies\tEscherichia coli\n");

  out.clear();
  ReadFormatter(db, true).append_tsv(out, call);
  CHECK(out == "read1\tC\t562\tspecies\tEscherichia coli\tNC_000913.3:12,NC_003197.2:4\n");

  out.clear();
  call.taxid = 511145;
  ReadFormatter(db, false).append_tsv(out, call);
  CHECK(out == "read1\tC\t511145\tno rank\tEscherichia coli str. K-12 substr. MG1655\n");

  out.clear();
  call.taxid = 0;
  call.candidate_count = 0;
  ReadFormatter(db, true).append_tsv(out, call);
  CHECK(out == "read1\tU\t0\t-\tunclassified\t-\n");
  CHECK(ReadFormatter(db, true).tsv_header() == "#read_id\tstatus\ttaxid\trank\tname\ttop_hits\n");
}

TEST_CASE("Kraken2 per-read lines: the evidence column") {
  const auto db = sample_db();
  using metawarp::classify::EvidenceRun;
  // Mate 1: 3 features of 562, one not in the database, 2 of 562 again;
  // mate 2: 4 of 28901.
  const EvidenceRun runs[4] = {{562, 3}, {0, 1}, {562, 2}, {28901, 4}};
  ReadCall call;
  call.id = "pair7";
  call.length1 = 150;
  call.length2 = 148;
  call.paired = true;
  call.taxid = 543;
  call.evidence = runs;
  call.evidence_runs = 4;
  call.mate1_runs = 3;
  std::string out;
  ReadFormatter formatter(db, false);
  formatter.append_kraken(out, call);
  CHECK(out == "C\tpair7\t543\t150|148\t562:3 0:1 562:2 |:| 28901:4\n");

  // A mate without features writes no runs, as Kraken2's AddHitlistString
  // does: the mates' border "|:|" stays, "0:0" only for a read without any.
  out.clear();
  call.mate1_runs = 4;  // mate 2 without features
  formatter.append_kraken(out, call);
  CHECK(out == "C\tpair7\t543\t150|148\t562:3 0:1 562:2 28901:4 |:|\n");

  out.clear();
  call.mate1_runs = 0;  // mate 1 without features
  formatter.append_kraken(out, call);
  CHECK(out == "C\tpair7\t543\t150|148\t|:| 562:3 0:1 562:2 28901:4\n");

  out.clear();
  call.evidence_runs = 0;  // neither mate has features
  formatter.append_kraken(out, call);
  CHECK(out == "C\tpair7\t543\t150|148\t|:|\n");

  out.clear();
  call.paired = false;
  call.taxid = 0;
  call.evidence_runs = 0;
  call.mate1_runs = 0;
  formatter.append_kraken(out, call);
  CHECK(out == "U\tpair7\t0\t150\t0:0\n");
}
