// The partitioned query (pipeline/query/partitioned_query.hpp) against the whole
// database's query: all four outputs byte-identical for any number of parts,
// memory limits that force many parts and super-batches, thread counts and
// batch sizes; on test_data and on databases built with random parameters.
// A part damaged during the query fails it, leaving no output.
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "db/file_format.hpp"
#include "db/metadata.hpp"
#include "db/partial_load.hpp"
#include "error_of.hpp"
#include "pipeline/build/build.hpp"
#include "pipeline/query/partitioned_query.hpp"
#include "pipeline/query/query.hpp"
#include "query_test_data.hpp"
#include "scratch_dir.hpp"

using namespace metawarp;
namespace fs = std::filesystem;
using test::slurp;

namespace {

const fs::path data_dir = test::query_data_dir;

struct Outputs {
  std::string tsv, kraken, report, abundance;
  bool operator==(const Outputs&) const = default;
};

pipeline::QueryOptions with_outputs(pipeline::QueryOptions o, const test::ScratchDir& dir,
                                    const std::string& name) {
  o.output = dir.file(name + ".tsv");
  o.kraken_output = dir.file(name + ".kraken");
  o.report = dir.file(name + ".report");
  o.abundance = dir.file(name + ".abundance");
  return o;
}

Outputs read_outputs(const pipeline::QueryOptions& o) {
  return {slurp(o.output), slurp(o.kraken_output), slurp(o.report), slurp(o.abundance)};
}

Outputs whole(const db::Database& db, const pipeline::QueryOptions& options,
              const test::ScratchDir& dir) {
  const pipeline::QueryOptions o = with_outputs(options, dir, "whole");
  pipeline::run_query(db, o);
  return read_outputs(o);
}

// `keep_bytes`: the plan's parts kept in memory (PartCache), when given.
Outputs parted(const db::PartialDatabase& db, const pipeline::PartitionOptions& partitions,
               const pipeline::QueryOptions& options, const test::ScratchDir& dir,
               pipeline::PartitionStats* stats = nullptr,
               std::optional<std::uint64_t> keep_bytes = {}) {
  const pipeline::QueryOptions o = with_outputs(options, dir, "parted");
  pipeline::PartitionPlan plan = pipeline::plan_partitions(db, partitions);
  if (keep_bytes) plan.keep_bytes = *keep_bytes;
  pipeline::run_partitioned_query(db, plan, o, nullptr, nullptr, stats);
  return read_outputs(o);
}

pipeline::QueryOptions reads_options(bool paired) {
  pipeline::QueryOptions o;
  o.reads = {(data_dir / "reads_R1.fq").string()};
  if (paired) o.reads.push_back((data_dir / "reads_R2.fq").string());
  o.threads = 2;
  o.top_hits = true;  // the candidates' hits too: the strictest per-read output
  return o;
}

// Every way of splitting gives the whole database's outputs.
// `thread_counts`: the tiny-limit runs' thread counts (each run loads parts
// hundreds of times: the random databases take one, to keep CI's ASan run short);
// run i keeps every part, none, or half of the index's bytes (i mod 3).
void check_partitions(const db::Database& whole_db, const fs::path& file,
                      const pipeline::QueryOptions& options,
                      std::initializer_list<unsigned> thread_counts = {1u, 3u, 2u}) {
  test::ScratchDir dir("partitioned");
  const Outputs reference = whole(whole_db, options, dir);
  REQUIRE(reference.tsv.size() > 1000);
  const db::PartialDatabase db(file, 2);
  for (const std::size_t count : {1u, 2u, 3u}) {
    INFO(count << " partitions");
    pipeline::PartitionOptions p;
    p.partitions = count;
    CHECK(parted(db, p, options, dir) == reference);
  }
  // A tiny memory limit: many parts, many super-batches, odd batch sizes and
  // thread counts; every part kept once read, none, or some.
  const std::uint64_t bytes = db::index_bytes(db.feature_count(), db.location_count());
  const std::uint64_t keeps[] = {bytes * 2, 0, bytes / 2};
  for (std::size_t run = 0; run < std::size(thread_counts); ++run) {
    const unsigned threads = std::data(thread_counts)[run];
    const std::uint64_t keep = keeps[run % std::size(keeps)];
    INFO(threads << " threads, parts kept up to " << keep << " bytes");
    pipeline::PartitionOptions p;
    p.part_bytes = bytes / 25;
    p.hit_memory = 256 << 10;
    pipeline::QueryOptions o = options;
    o.threads = threads;
    o.batch_size = threads == 1 ? 1000 : 37;
    pipeline::PartitionStats stats;
    CHECK(parted(db, p, o, dir, &stats, keep) == reference);
    CHECK(stats.parts >= 25);
    CHECK(stats.largest_part_bytes <= p.part_bytes);
    CHECK(stats.super_batches > 1);
    // Every other walk goes over the parts backwards, keeping the last one.
    CHECK(stats.walks >= stats.super_batches);
    CHECK(stats.part_loads == stats.parts + (stats.walks - 1) * (stats.parts - 1));
    // Read from the file: each part once when all are kept, at each use when
    // none is, in between when some are.
    CHECK(stats.kept_bytes <= keep);
    if (keep >= bytes) {
      CHECK(stats.kept_parts == stats.parts);
      CHECK(stats.part_reads == stats.parts);
    } else if (keep == 0) {
      CHECK(stats.kept_parts == 0);
      CHECK(stats.part_reads == stats.part_loads);
    } else {
      CHECK(stats.kept_parts > 0);
      CHECK(stats.kept_parts < stats.parts);
      CHECK(stats.part_reads > stats.parts);
      CHECK(stats.part_reads < stats.part_loads);
    }
  }
}

// test_data's database saved in a scratch folder and open to be read in parts.
struct SavedTestDatabase {
  test::ScratchDir dir;
  fs::path file;
  db::PartialDatabase db;
  std::uint64_t whole;  // its index's db::index_bytes

  explicit SavedTestDatabase(const std::string& name)
      : dir(name), file(saved(dir)), db(file, 2),
        whole(db::index_bytes(db.feature_count(), db.location_count())) {}
  static fs::path saved(const test::ScratchDir& dir) {
    db::save(test::test_database(), dir / "test.mwdb");
    return dir / "test.mwdb";
  }
};

}  // namespace

TEST_CASE("partitioned query: test_data, pairs and single reads, equal the whole database") {
  test::ScratchDir dir("partitioned_db");
  const fs::path file = dir / "test.mwdb";
  db::save(test::test_database(), file);
  check_partitions(test::test_database(), file, reads_options(true));
  check_partitions(test::test_database(), file, reads_options(false));
}

TEST_CASE("partitioned query: databases of random parameters equal the whole database") {
  std::mt19937_64 rng(20240612);
  for (int round = 0; round < 3; ++round) {
    pipeline::BuildOptions b = test::random_build_options(rng, 40);
    b.params.remove_overpopulated_features = rng() % 2 == 0;
    INFO(test::parameters_of(b) << (b.params.remove_overpopulated_features ? " remove" : ""));
    const db::Database built = pipeline::build_database(b);
    test::ScratchDir dir("partitioned_random");
    db::save(built, dir / "random.mwdb");
    pipeline::QueryOptions o = reads_options(round != 1);
    o.classifier.hit_min = std::uint32_t(rng() % 3);
    o.classifier.hit_diff = std::uint32_t(rng() % 5);
    check_partitions(built, dir / "random.mwdb", o, {round == 0 ? 1u : 3u});
  }
}

TEST_CASE("partitioned query: a part damaged during the query fails it, leaving no output") {
  test::ScratchDir dir("partitioned_damage");
  const fs::path file = dir / "test.mwdb";
  db::save(test::test_database(), file);
  const db::PartialDatabase db(file);
  pipeline::PartitionOptions p;
  p.partitions = 3;
  const pipeline::PartitionPlan plan = pipeline::plan_partitions(db, p);
  // The last byte of the locations: in the last part.
  const db::DatabaseMetadata meta = db::load_metadata(file);
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(std::streamoff(meta.locations.offset + meta.locations.bytes - 1));
    f.put('\x7f');
  }
  const pipeline::QueryOptions o = with_outputs(reads_options(true), dir, "out");
  test::write_file(o.report, "an older report\n");
  std::string error;
  try {
    pipeline::run_partitioned_query(db, plan, o);
  } catch (const std::runtime_error& e) {
    error = e.what();
  }
  INFO(error);
  CHECK(error.find("checksum mismatch in section 'locations'") != std::string::npos);
  CHECK(error.find(file.string()) != std::string::npos);
  for (const std::string& out : {o.output, o.kraken_output, o.report, o.abundance})
    CHECK(!fs::exists(out));
}

TEST_CASE("partitioned query: a super-batch's memory stays in its budget, whatever the parts") {
  const SavedTestDatabase saved("partitioned_memory");
  const db::PartialDatabase& db = saved.db;
  pipeline::QueryOptions o = reads_options(true);
  o.batch_size = 100;
  const std::uint64_t budget = std::uint64_t(1) << 20;
  pipeline::PartitionOptions one;
  one.partitions = 1;
  one.hit_memory = budget;
  pipeline::PartitionStats one_stats;
  const Outputs reference = parted(db, one, o, saved.dir, &one_stats);
  // Many parts: the hits of a batch are appended part after part, so what a
  // super-batch holds does not grow with the parts (it grew by about 12 bytes
  // a feature and 8 a read for every part: 2.6 GB for 5000 parts).
  pipeline::PartitionOptions many = one;
  many.partitions = 0;
  many.part_bytes = saved.whole / 40;
  pipeline::PartitionStats many_stats;
  CHECK(parted(db, many, o, saved.dir, &many_stats) == reference);
  CHECK(many_stats.parts >= 40);
  CHECK(one_stats.super_batches > 2);
  INFO("one part: " << one_stats.largest_super_batch_bytes << " bytes, "
                    << many_stats.parts << " parts: " << many_stats.largest_super_batch_bytes);
  CHECK(many_stats.largest_super_batch_bytes <= one_stats.largest_super_batch_bytes * 5 / 4);
  // Within the budget: batches the estimate took too many of walk the parts
  // again.
  CHECK(one_stats.largest_super_batch_bytes <= budget);
  CHECK(many_stats.largest_super_batch_bytes <= budget);
}

TEST_CASE("partitioned query: more partitions than useful give parts of min_part_bytes") {
  const SavedTestDatabase saved("partitioned_clamp");
  const db::PartialDatabase& db = saved.db;
  const std::uint64_t whole = saved.whole;
  REQUIRE(whole / pipeline::min_part_bytes >= 2);
  pipeline::PartitionOptions p;
  p.partitions = 5000;
  const pipeline::PartitionPlan plan = pipeline::plan_partitions(db, p);
  CHECK(plan.parts.size() == whole / pipeline::min_part_bytes);
  CHECK(plan.hit_memory == pipeline::default_hit_memory());
  // Asked for no more than useful: as asked.
  p.partitions = 2;
  CHECK(pipeline::plan_partitions(db, p).parts.size() == 2);
}

TEST_CASE("partitioned query: --max-memory holds what is in use, a part and the reads") {
  const SavedTestDatabase saved("partitioned_max_memory");
  const db::PartialDatabase& db = saved.db;
  const std::uint64_t whole = saved.whole;
  const pipeline::MemoryInUse in_use{std::uint64_t(40) << 20, 3};
  const std::uint64_t fixed =
      in_use.resident + 3 * pipeline::thread_memory + pipeline::reader_memory;
  const auto largest = [](const pipeline::PartitionPlan& plan) {
    std::uint64_t bytes = 0;
    for (const db::IndexPart& part : plan.parts)
      bytes = std::max(bytes, db::index_bytes(part.features(), part.locations()));
    return bytes;
  };
  // The reads' budget with half again for what malloc keeps.
  const std::uint64_t needed =
      fixed + pipeline::min_part_bytes + pipeline::min_hit_memory * 3 / 2;
  const auto within = [&](const pipeline::PartitionPlan& plan, std::uint64_t max_memory) {
    const std::uint64_t used = fixed + largest(plan) + plan.hit_memory * 3 / 2;
    return used <= max_memory && used + 2 >= max_memory;  // all of it, but for rounding
  };
  const std::uint64_t least = pipeline::least_max_memory(db, in_use);
  CHECK(least >= needed);
  CHECK(least <= needed + (std::uint64_t(5) << 20));  // a margin for what is measured

  // What is needed works: parts of min_part_bytes.
  pipeline::PartitionOptions p;
  p.max_memory = needed;
  pipeline::PartitionPlan plan = pipeline::plan_partitions(db, p, in_use);
  CHECK(plan.parts.size() >= whole / pipeline::min_part_bytes);
  CHECK(largest(plan) <= pipeline::min_part_bytes);
  CHECK(plan.hit_memory >= pipeline::min_hit_memory);
  CHECK(within(plan, p.max_memory));
  // So does the least suggested, sharing it the same way.
  p.max_memory = least;
  plan = pipeline::plan_partitions(db, p, in_use);
  CHECK(within(plan, p.max_memory));

  const auto error_of = [&](const pipeline::PartitionOptions& options) {
    return test::error_of([&] { pipeline::plan_partitions(db, options, in_use); });
  };
  // Below what is needed: refused, naming the least.
  p.max_memory = needed - 1;
  const std::string error = error_of(p);
  INFO(error);
  CHECK(error.find("allow at least --max-memory " + std::to_string(least)) != std::string::npos);
  CHECK(error.find(saved.file.string()) != std::string::npos);

  // --partitions N whose parts do not fit the part's share.
  p.max_memory = needed;
  p.partitions = 2;
  CHECK(error_of(p).find("give more partitions, or --max-memory alone") != std::string::npos);
  p.partitions = 0;

  // Plenty: the whole index in one part, the reads the rest.
  p.max_memory = std::uint64_t(1) << 30;
  plan = pipeline::plan_partitions(db, p, in_use);
  CHECK(plan.parts.size() == 1);
  CHECK(within(plan, p.max_memory));

  // --hit-memory given: the reads get it, the parts what it leaves.
  p.max_memory = fixed + whole / 4 + (std::uint64_t(24) << 20);
  p.hit_memory = std::uint64_t(16) << 20;
  plan = pipeline::plan_partitions(db, p, in_use);
  CHECK(plan.parts.size() >= 4);
  CHECK(largest(plan) <= whole / 4);
  CHECK(plan.hit_memory == p.hit_memory);

  // --partitions N within --max-memory: the reads get what the largest part leaves.
  p.hit_memory = 0;
  p.partitions = 3;
  p.max_memory = fixed + whole + (std::uint64_t(16) << 20);
  plan = pipeline::plan_partitions(db, p, in_use);
  CHECK(plan.parts.size() == 3);
  CHECK(within(plan, p.max_memory));
}

// A read's feature counts at most once per candidate
// (classify::repeats_within_span, applied to each feature's whole list): on
// targets made of repeats, where the rule drops many hits, every split into
// parts gives the whole database's outputs (the default sampling).
TEST_CASE("partitioned query: repeats within a read's span, equal the whole database") {
  test::ScratchDir dir("partitioned_repeats");
  std::mt19937 rng(26);
  auto dna = [&](std::size_t n) {
    std::string s(n, 'A');
    for (char& c : s) c = "ACGT"[rng() % 4];
    return s;
  };
  std::vector<std::string> genomes;
  std::string fasta;
  for (int t = 0; t < 8; ++t) {  // enough features for 25 parts (check_partitions)
    const std::string unit = dna(40 + rng() % 200);
    std::string g = dna(rng() % 300);
    for (int copy = 0; copy < 24; ++copy) g += unit + dna(rng() % 400);
    genomes.push_back(g);
    fasta += ">SYN000000" + std::to_string(t + 1) + ".1\n" + g + "\n";
  }
  fs::create_directories(dir / "genomes");
  test::write_file(dir / "genomes" / "repeats.fa", fasta);
  std::string r1, r2;
  for (int i = 0; i < 300; ++i) {
    const std::string& g = genomes[rng() % genomes.size()];
    for (std::string* out : {&r1, &r2}) {
      const std::size_t length = 60 + rng() % 200;
      *out += "@r" + std::to_string(i) + "\n" + g.substr(rng() % (g.size() - length), length) +
              "\n+\n" + std::string(length, 'I') + "\n";
    }
  }
  test::write_file(dir / "r1.fq", r1);
  test::write_file(dir / "r2.fq", r2);
  pipeline::BuildOptions b = test::test_build_options();
  b.references = {(dir / "genomes").string()};
  const db::Database built = pipeline::build_database(b);
  db::save(built, dir / "repeats.mwdb");
  pipeline::QueryOptions o = reads_options(true);
  o.reads = {(dir / "r1.fq").string(), (dir / "r2.fq").string()};
  check_partitions(built, dir / "repeats.mwdb", o, {3u});
  o.reads.pop_back();
  check_partitions(built, dir / "repeats.mwdb", o, {1u});
}
