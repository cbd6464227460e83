// The query pipeline end to end on test_data (built in-process with the build
// pipeline): accuracy against the generator's truth, identical output for any
// thread count and batch size, pair handling and bad inputs.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <sys/stat.h>
#include <unistd.h>

#include "catch.hpp"
#include "scratch_dir.hpp"
#include "io/parse/sequence_reader.hpp"
#include "query_test_data.hpp"
#include "pipeline/query/query.hpp"
#include "pipeline/query/query_buffers.hpp"

using namespace metawarp;
namespace fs = std::filesystem;

namespace {

const fs::path data_dir = test::query_data_dir;
using test::slurp;
using test::test_database;
using test::write_file;

using TempDir = test::ScratchDir;

std::vector<std::vector<std::string>> tsv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    std::istringstream l(line);
    std::string f;
    while (std::getline(l, f, '\t')) fields.push_back(f);
    rows.push_back(fields);
  }
  return rows;
}

struct Outputs {
  std::string tsv, kraken, report, abundance;
};

Outputs run(const TempDir& dir, pipeline::QueryOptions o, pipeline::QueryBuffers* buffers = nullptr) {
  o.output = dir / "out.tsv";
  o.kraken_output = dir / "out.kraken";
  o.report = dir / "out.report";
  o.abundance = dir / "out.abundance";
  pipeline::run_query(test_database(), o, nullptr, nullptr, buffers);
  return {slurp(o.output), slurp(o.kraken_output), slurp(o.report), slurp(o.abundance)};
}

pipeline::QueryOptions paired_options() {
  pipeline::QueryOptions o;
  o.reads = {(data_dir / "reads_R1.fq").string(), (data_dir / "reads_R2.fq").string()};
  o.threads = 2;
  return o;
}

}  // namespace

TEST_CASE("query: species-level accuracy on the synthetic set") {
  if (!fs::exists(data_dir / "truth.tsv")) return;  // no test data in this checkout
  TempDir dir;
  const Outputs out = run(dir, paired_options());

  // Truth: read id -> species taxid (0 for random pairs).
  std::map<std::string, taxonomy::taxid_t> truth;
  for (const auto& row : tsv_rows(slurp((data_dir / "truth.tsv").string())))
    if (row.at(0) != "read_id") truth[row.at(0)] = taxonomy::taxid_t(std::stoul(row.at(2)));
  REQUIRE(truth.size() == 2000);

  const auto& tax = test_database().taxonomy;
  std::size_t real = 0, assigned = 0, correct = 0, random_classified = 0, rows = 0;
  for (const auto& row : tsv_rows(out.tsv)) {
    ++rows;
    REQUIRE(truth.count(row.at(0)) == 1);
    const taxonomy::taxid_t want = truth[row.at(0)];
    const taxonomy::taxid_t got = taxonomy::taxid_t(std::stoul(row.at(2)));
    CHECK((row.at(1) == "C") == (got != 0));
    if (want == 0) {
      random_classified += got != 0;
      continue;
    }
    ++real;
    const taxonomy::taxid_t species =
        got == 0 ? 0 : tax.ranked_lineage(got).at(taxonomy::CanonicalRank::species);
    if (species != 0) {
      ++assigned;
      correct += species == want;
    }
  }
  CHECK(rows == 2000);
  CHECK(random_classified == 0);
  const double sensitivity = double(correct) / double(real);
  const double precision = double(correct) / double(assigned);
  INFO("species sensitivity " << sensitivity << ", precision " << precision);
  CHECK(sensitivity >= 0.8);
  CHECK(precision >= 0.95);

  // The report's root line and unclassified line account for every pair.
  const auto report = tsv_rows(out.report);
  REQUIRE(report.size() >= 2);
  CHECK(report[0].at(3) == "U");
  CHECK(std::stoul(report[0].at(1)) + std::stoul(report[1].at(1)) == 2000);
  CHECK(std::stoul(report[0].at(1)) == 20);  // exactly the random pairs
}

TEST_CASE("query: output does not depend on threads or batch size") {
  TempDir dir;
  auto o = paired_options();
  o.threads = 1;
  o.batch_size = 4096;
  o.top_hits = true;
  const Outputs reference = run(dir, o);
  std::vector<std::pair<unsigned, std::size_t>> settings{{3u, 333}};
  for (unsigned threads : {1u, 2u, 4u})
    for (std::size_t batch : {1, 7, 4096}) settings.emplace_back(threads, batch);
  for (auto [threads, batch] : settings) {
    o.threads = threads;
    o.batch_size = batch;
    const Outputs other = run(dir, o);
    INFO("threads " << threads << ", batch " << batch);
    CHECK(other.tsv == reference.tsv);
    CHECK(other.kraken == reference.kraken);
    CHECK(other.report == reference.report);
    CHECK(other.abundance == reference.abundance);
  }

  // Single-end and interleaved input too (cut by one reader thread).
  pipeline::QueryOptions single;
  single.reads = {(data_dir / "reads_R1.fq").string()};
  single.threads = 1;
  const Outputs single_reference = run(dir, single);
  single.threads = 4;
  single.batch_size = 7;
  CHECK(run(dir, single).tsv == single_reference.tsv);
}

TEST_CASE("query: buffers kept from query to query change no output") {
  TempDir dir;
  // Queries of every shape, in turn, through one QueryBuffers (as the
  // samples of a run share one), each against a query with its own.
  std::ifstream r1(data_dir / "reads_R1.fq"), r2(data_dir / "reads_R2.fq");
  std::string interleaved, line;
  while (std::getline(r1, line)) {
    interleaved += line + '\n';
    for (int i = 0; i < 3 && std::getline(r1, line); ++i) interleaved += line + '\n';
    for (int i = 0; i < 4 && std::getline(r2, line); ++i) interleaved += line + '\n';
  }
  write_file(dir / "interleaved.fq", interleaved);
  std::vector<pipeline::QueryOptions> queries;
  auto paired = paired_options();
  paired.batch_size = 300;
  queries.push_back(paired);
  pipeline::QueryOptions single;
  single.reads = {(data_dir / "reads_R1.fq").string()};
  single.threads = 3;
  single.batch_size = 1000;
  queries.push_back(single);
  pipeline::QueryOptions pairs_in_one;
  pairs_in_one.reads = {(dir / "interleaved.fq").string()};
  pairs_in_one.interleaved = true;
  pairs_in_one.threads = 2;
  pairs_in_one.batch_size = 77;
  queries.push_back(pairs_in_one);
  paired.batch_size = 4096;
  queries.push_back(paired);

  pipeline::QueryBuffers shared;
  shared.prepare(queries.front());
  for (std::size_t q = 0; q < queries.size(); ++q) {
    const Outputs alone = run(dir, queries[q]);
    const Outputs kept = run(dir, queries[q], &shared);
    INFO("query " << q);
    CHECK(kept.tsv == alone.tsv);
    CHECK(kept.kraken == alone.kraken);
    CHECK(kept.report == alone.report);
    CHECK(kept.abundance == alone.abundance);
  }
  // A query that fails on bad input leaves buffers that the next one reuses.
  write_file(dir / "bad.fq", "@a\nACGT\n+\nIII\n");
  pipeline::QueryOptions bad;
  bad.reads = {(dir / "bad.fq").string()};
  CHECK_THROWS_AS(run(dir, bad, &shared), io::InputError);
  CHECK(run(dir, queries[0], &shared).tsv == run(dir, queries[0]).tsv);
}

TEST_CASE("query: buffers prepared for reads from pipes take none of their bytes") {
  TempDir dir;
  // More than the warm-up's look at a file (1 MiB): had it read the pipe, the
  // query would find the reads cut in the middle (or the writer a closed pipe).
  std::string reads;
  for (int copy = 0; copy < 4; ++copy) reads += slurp(data_dir / "reads_R1.fq");
  REQUIRE(reads.size() > (std::size_t(3) << 20) / 2);
  write_file(dir / "reads.fq", reads);
  pipeline::QueryOptions from_file;
  from_file.reads = {(dir / "reads.fq").string()};
  const Outputs expected = run(dir, from_file);
  // The same reads through a FIFO, as `<(zcat reads.fq.gz)` gives them.
  const fs::path fifo = dir / "reads.fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  pipeline::QueryOptions from_pipe;
  from_pipe.reads = {fifo.string()};
  std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << reads; });
  pipeline::QueryBuffers buffers;
  Outputs got;
  try {
    buffers.prepare(from_pipe);
    got = run(dir, from_pipe, &buffers);
  } catch (...) {
    writer.join();
    throw;
  }
  writer.join();
  CHECK(got.tsv == expected.tsv);
}

TEST_CASE("query: a batch's expected bytes come from the first records of a plain file") {
  TempDir dir;
  auto o = paired_options();
  o.batch_size = 300;
  // test_data's records are 2 x 150 bp FASTQ: about 330 bytes each.
  const std::size_t bytes = pipeline::expected_batch_bytes(o);
  CHECK(bytes >= 300 * 300);
  CHECK(bytes <= 300 * 400 * 11 / 10 + 65536);
  o.batch_size = 600;
  CHECK(pipeline::expected_batch_bytes(o) > bytes);
  // Nothing known before reading: stdin, FASTA, a file that is not there.
  for (const std::string& reads : {std::string("-"), (dir / "missing.fq").string()}) {
    o.reads = {reads};
    CHECK(pipeline::expected_batch_bytes(o) == 0);
  }
  write_file(dir / "reads.fa", ">a\nACGT\n>b\nACGT\n");
  o.reads = {(dir / "reads.fa").string()};
  CHECK(pipeline::expected_batch_bytes(o) == 0);
}

TEST_CASE("query: interleaved pairs equal two files; single-end reads") {
  TempDir dir;
  const Outputs two_files = run(dir, paired_options());

  // Interleave R1 and R2 (4 lines each).
  std::ifstream r1(data_dir / "reads_R1.fq"), r2(data_dir / "reads_R2.fq");
  std::string interleaved, line;
  for (bool more = true; more;) {
    for (auto* in : {&r1, &r2})
      for (int i = 0; i < 4; ++i) {
        if (!std::getline(*in, line)) {
          more = false;
          break;
        }
        interleaved += line + '\n';
      }
  }
  write_file(dir / "interleaved.fq", interleaved);
  pipeline::QueryOptions o;
  o.reads = {dir / "interleaved.fq"};
  o.interleaved = true;
  const Outputs one_file = run(dir, o);
  CHECK(one_file.tsv == two_files.tsv);
  CHECK(one_file.kraken == two_files.kraken);

  // Single-end: every read reported under its own id, Kraken length unpaired.
  o = {};
  o.reads = {(data_dir / "reads_R1.fq").string()};
  const Outputs single = run(dir, o);
  const auto rows = tsv_rows(single.tsv);
  REQUIRE(rows.size() == 2000);
  CHECK(rows[0].at(0) == "r1/1");
  const auto kraken = tsv_rows(single.kraken);
  CHECK(kraken[0].at(3) == "150");
  CHECK(tsv_rows(two_files.kraken)[0].at(3) == "150|150");
}

namespace {

// `text` with the quality line of FASTQ record `record` (1-based) one letter short.
std::string shorten_quality(const std::string& text, std::size_t record) {
  std::size_t at = 0;
  for (std::size_t line = 0; line < 4 * (record - 1) + 3; ++line) at = text.find('\n', at) + 1;
  std::string changed = text;
  changed.erase(at, 1);
  return changed;
}

// `text` with the id of FASTQ record `record` (1-based) changed.
std::string rename_record(const std::string& text, std::size_t record) {
  std::size_t at = 0;
  for (std::size_t line = 0; line < 4 * (record - 1); ++line) at = text.find('\n', at) + 1;
  std::string changed = text;
  changed.insert(at + 1, "renamed_");
  return changed;
}

// What a serial read of the file reports first.
std::string serial_error(const std::string& path) {
  try {
    io::SequenceReader reader(path);
    io::SequenceRecord record;
    while (reader.next(record)) {
    }
  } catch (const io::InputError& error) {
    return error.what();
  }
  return "no error";
}

std::string query_error(const TempDir& dir, const pipeline::QueryOptions& o) {
  try {
    run(dir, o);
  } catch (const io::InputError& error) {
    return error.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("query: the first bad record in input order is reported, whatever the threads") {
  TempDir dir;
  const std::string r1 = slurp((data_dir / "reads_R1.fq").string());
  const std::string r2 = slurp((data_dir / "reads_R2.fq").string());
  const std::string bad_r1 = dir / "bad_R1.fq";
  const std::string bad_r2 = dir / "bad_R2.fq";
  pipeline::QueryOptions o;
  o.reads = {bad_r1, bad_r2};

  SECTION("records 10 and 2000 of R1 are bad") {
    write_file(bad_r1, shorten_quality(shorten_quality(r1, 2000), 10));
    write_file(bad_r2, r2);
    const std::string expected = serial_error(bad_r1);
    CHECK(expected.find(bad_r1 + ": record 10: quality length 149 differs") == 0);
    for (auto [threads, batch] : {std::pair{4u, 100}, std::pair{4u, 1}, std::pair{2u, 7}, std::pair{1u, 4096}}) {
      o.threads = threads;
      o.batch_size = std::size_t(batch);
      for (int repeat = 0; repeat < 3; ++repeat) {
        INFO("threads " << threads << ", batch " << batch);
        CHECK(query_error(dir, o) == expected);
      }
    }
  }
  SECTION("record 10 of R2 and record 2000 of R1 are bad") {
    write_file(bad_r1, shorten_quality(r1, 2000));
    write_file(bad_r2, shorten_quality(r2, 10));
    o.threads = 4;
    o.batch_size = 100;
    for (int repeat = 0; repeat < 3; ++repeat) CHECK(query_error(dir, o) == serial_error(bad_r2));
  }
  SECTION("pair 10's ids differ and record 2000 of R1 is bad") {
    write_file(bad_r1, shorten_quality(r1, 2000));
    write_file(bad_r2, rename_record(r2, 10));
    o.threads = 4;
    o.batch_size = 100;
    for (int repeat = 0; repeat < 3; ++repeat) {
      const std::string message = query_error(dir, o);
      CHECK(message.find(bad_r1 + " / " + bad_r2 + ": record 10: mate ids differ: ") == 0);
    }
  }
  SECTION("interleaved: record 10 and record 3000 are bad") {
    std::string interleaved;
    std::istringstream in1(r1), in2(r2);
    std::string line;
    for (bool more = true; more;)
      for (auto* in : {&in1, &in2})
        for (int i = 0; i < 4; ++i) {
          if (!std::getline(*in, line)) {
            more = false;
            break;
          }
          interleaved += line + '\n';
        }
    write_file(bad_r1, shorten_quality(shorten_quality(interleaved, 3000), 10));
    o.reads = {bad_r1};
    o.interleaved = true;
    o.threads = 4;
    o.batch_size = 50;
    for (int repeat = 0; repeat < 3; ++repeat) CHECK(query_error(dir, o) == serial_error(bad_r1));
  }
}

TEST_CASE("query: empty and short reads are reported unclassified") {
  TempDir dir;
  write_file(dir / "odd.fa", ">empty\n\n>short\nACGTACGT\n>n_only\nNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNN\n");
  pipeline::QueryOptions o;
  o.reads = {dir / "odd.fa"};
  const Outputs out = run(dir, o);
  const auto rows = tsv_rows(out.tsv);
  REQUIRE(rows.size() == 3);
  for (const auto& row : rows) CHECK(row.at(1) == "U");
  CHECK(rows[0].at(0) == "empty");
  CHECK(tsv_rows(out.kraken)[1] == std::vector<std::string>{"U", "short", "0", "8", "0:0"});
  CHECK(out.report == "100.00\t3\t3\tU\t0\tunclassified\n");
}

TEST_CASE("query: bad inputs are errors") {
  TempDir dir;
  // R2 with one record fewer than R1.
  const std::string r2 = slurp((data_dir / "reads_R2.fq").string());
  std::size_t cut = r2.size();
  for (int lines = 0; lines < 5; ++lines) cut = r2.rfind('\n', cut - 1);
  write_file(dir / "short_R2.fq", r2.substr(0, cut + 1));
  pipeline::QueryOptions o;
  o.reads = {(data_dir / "reads_R1.fq").string(), dir / "short_R2.fq"};
  CHECK_THROWS_AS(run(dir, o), io::InputError);

  // Mates whose names differ.
  write_file(dir / "a.fa", ">x/1\nACGT\n");
  write_file(dir / "b.fa", ">y/2\nACGT\n");
  o.reads = {dir / "a.fa", dir / "b.fa"};
  CHECK_THROWS_AS(run(dir, o), io::InputError);

  o.reads = {dir / "missing.fq"};
  CHECK_THROWS(run(dir, o));
  o.reads = {dir / "a.fa", dir / "b.fa"};
  o.interleaved = true;
  CHECK_THROWS_AS(run(dir, o), std::invalid_argument);

  o = {};
  o.reads = {dir / "a.fa"};
  o.output = "-";
  o.kraken_output = "-";
  std::string message;
  try {
    pipeline::run_query(test_database(), o);
  } catch (const std::runtime_error& e) {
    message = e.what();
  }
  CHECK(message.find("standard output") != std::string::npos);
  o.kraken_output = dir / "no_such_dir/out.kraken";
  CHECK_THROWS_AS(pipeline::run_query(test_database(), o), std::runtime_error);
}

namespace {

// run() through a PendingDatabase whose load takes `load` (the reads are cut
// meanwhile) and then returns the test database with a CPU engine, or
// throws `error` when one is given.
pipeline::QuerySummary run_pending(const TempDir& dir, pipeline::QueryOptions o,
                                   std::chrono::milliseconds load, const char* error = nullptr) {
  o.output = dir / "out.tsv";
  o.kraken_output = dir / "out.kraken";
  o.report = dir / "out.report";
  o.abundance = dir / "out.abundance";
  const auto engine = pipeline::make_cpu_query_engine(test_database(), pipeline::engine_options(o));
  pipeline::QueryCounters counters;
  int waits = 0;
  const pipeline::PendingDatabase pending{[&] {
    ++waits;
    std::this_thread::sleep_for(load);
    if (error) throw std::runtime_error(error);
    return pipeline::LoadedDatabase{&test_database(), engine.get(), &counters};
  }};
  const pipeline::QuerySummary summary = pipeline::run_query(pending, o);
  CHECK(waits == 1);
  CHECK(counters.reads.load() == summary.reads);
  return summary;
}

}  // namespace

TEST_CASE("query: reads cut while the database loads give the same outputs") {
  TempDir dir;
  for (auto [threads, batch] : {std::pair<unsigned, std::size_t>{1u, 4096}, {4u, 300}, {2u, 7}}) {
    auto o = paired_options();
    o.threads = threads;
    o.batch_size = batch;
    const Outputs reference = run(dir, o);
    const pipeline::QuerySummary summary = run_pending(dir, o, std::chrono::milliseconds(300));
    INFO("threads " << threads << ", batch " << batch);
    CHECK(slurp(dir / "out.tsv") == reference.tsv);
    CHECK(slurp(dir / "out.kraken") == reference.kraken);
    CHECK(slurp(dir / "out.report") == reference.report);
    CHECK(slurp(dir / "out.abundance") == reference.abundance);
    // The reads were cut while the "database" loaded, and the query's time
    // counts from when it was there.
    CHECK(summary.stages.batches_cut_ahead > 0);
    CHECK(summary.stages.database_wait >= 0.25);
    CHECK(summary.reads == tsv_rows(reference.tsv).size());
  }
}

TEST_CASE("query: a database that fails to load fails the query and leaves no output") {
  TempDir dir;
  auto o = paired_options();
  write_file(dir / "out.tsv", "an older file\n");
  std::string message;
  try {
    run_pending(dir, o, std::chrono::milliseconds(50), "database x: bad checksum");
  } catch (const std::runtime_error& e) {
    message = e.what();
  }
  CHECK(message == "database x: bad checksum");
  CHECK_FALSE(fs::exists(dir / "out.tsv"));
  CHECK_FALSE(fs::exists(dir / "out.report"));

  // Bad reads while the database loads: the reads' error, no output.
  write_file(dir / "bad.fq", "@a\nACGT\n+\nIII\n");
  o.reads = {(dir / "bad.fq").string()};
  CHECK_THROWS_AS(run_pending(dir, o, std::chrono::milliseconds(50)), io::InputError);
  CHECK_FALSE(fs::exists(dir / "out.tsv"));
}
