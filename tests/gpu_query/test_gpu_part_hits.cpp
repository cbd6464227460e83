// The GPU PartHitCollector (make_gpu_hit_collector) against the CPU's
// (make_cpu_hit_collector), the reference: for every part of 1, 2 and 3 part
// plans, every feature gets the same list, gathered part after part, on test_data and on
// databases built with random parameters (short and long lists at the cap),
// for batches of various sizes with empty and short reads; and sharded parts
// (several shards per GPU) give the same. And the same collector as a
// PartReadDecider (the hits kept on the GPU, the reads decided there): every
// read's result that of the CPU classifier on the whole database, with and
// without the evidence and --confidence.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "catch.hpp"
#include "db/database.hpp"
#include "db/partial_load.hpp"
#include "pipeline/build/build.hpp"
#include "pipeline/query/classifier.hpp"
#include "pipeline/query/gpu_query.hpp"
#include "pipeline/query/part_hits.hpp"
#include "../query/query_test_data.hpp"
#include "same_result.hpp"
#include "scratch_dir.hpp"

namespace fs = std::filesystem;
using namespace metawarp;

namespace {

const fs::path data_dir = test::query_data_dir;

using test::fastq_sequences;

// test_data's pairs (some mates dropped, some reads empty or cut short) in
// batches of 1, 7, 500 and the rest, and one of no reads (the strings:
// `text`; the views into them: returned).
std::vector<std::vector<pipeline::ReadView>> read_batches(std::vector<std::string>& text) {
  const auto r1 = fastq_sequences(data_dir / "reads_R1.fq");
  const auto r2 = fastq_sequences(data_dir / "reads_R2.fq");
  REQUIRE(r1.size() == r2.size());
  REQUIRE(r1.size() > 1000);
  text.clear();
  text.reserve(2 * r1.size());
  for (std::size_t read = 0; read < r1.size(); ++read) {
    std::string mate1 = r1[read], mate2 = r2[read];
    if (read % 11 == 3) mate2.clear();
    if (read % 13 == 5) mate1.clear();
    if (read % 17 == 7) mate1.resize(std::min<std::size_t>(mate1.size(), 10));
    text.push_back(std::move(mate1));
    text.push_back(std::move(mate2));
  }
  std::vector<std::vector<pipeline::ReadView>> batches;
  const std::size_t sizes[] = {1, 7, 500, r1.size()};
  std::size_t read = 0;
  for (std::size_t size : sizes) {
    auto& batch = batches.emplace_back();
    for (std::size_t i = 0; i < size && read < r1.size(); ++i, ++read)
      batch.push_back(pipeline::ReadView{text[2 * read], text[2 * read + 1]});
  }
  batches.emplace_back();  // a batch of no reads
  return batches;
}

// The same batches, sketched.
std::vector<pipeline::SketchedBatch> sketched_batches(const db::Database& db) {
  std::vector<std::string> text;
  const auto reads = read_batches(text);
  const pipeline::Classifier classifier(db, {});
  std::vector<pipeline::SketchedBatch> batches(reads.size());
  for (std::size_t b = 0; b < reads.size(); ++b)
    for (const pipeline::ReadView& read : reads[b]) {
      batches[b].shapes.push_back(
          classifier.sketch_read(read.mate1, read.mate2, batches[b].features, batches[b].positions));
      batches[b].offsets.push_back(batches[b].features.size());
    }
  return batches;
}

std::vector<sketch::Location> sorted(std::span<const sketch::Location> hits) {
  std::vector<sketch::Location> v(hits.begin(), hits.end());
  std::sort(v.begin(), v.end());
  return v;
}

// For every part of 1-3 part plans (and, with 3 parts, 2 shards per GPU):
// the same list per feature. Returns the hits found, for the caller to check the
// test is not vacuous.
std::uint64_t require_same_hits(const db::Database& db, const fs::path& file) {
  const db::PartialDatabase partial(file, 2);
  const auto batches = sketched_batches(db);
  std::uint64_t total = 0;
  for (std::size_t count : {1u, 2u, 3u}) {
    pipeline::ShardLayout layout;
    layout.shards_per_gpu = count == 3 ? 2 : 1;
    const auto cpu = pipeline::make_cpu_hit_collector(2);
    const auto gpu = pipeline::make_gpu_hit_collector(db.targets, layout);
    const std::vector<db::IndexPart> parts = partial.plan_parts(count);
    REQUIRE(parts.size() == count);
    std::vector<pipeline::BatchHits> cpu_hits(batches.size()), gpu_hits(batches.size());
    for (std::size_t b = 0; b < batches.size(); ++b) {
      cpu_hits[b].reset(batches[b].features.size());
      gpu_hits[b].reset(batches[b].features.size());
    }
    for (std::size_t p = 0; p < parts.size(); ++p) {
      CAPTURE(count, p);
      const db::FeatureIndex part = partial.load_part(parts[p], 2);
      cpu->use_part(part, parts[p]);
      gpu->use_part(part, parts[p]);
      cpu->collect(batches, cpu_hits);
      gpu->collect(batches, gpu_hits);
      for (std::size_t b = 0; b < batches.size(); ++b) {
        REQUIRE(gpu_hits[b].locations.size() == cpu_hits[b].locations.size());
        // Whose each location is (the evidence column): the same list sizes.
        REQUIRE(gpu_hits[b].list_sizes == cpu_hits[b].list_sizes);
        for (std::size_t i = 0; i < batches[b].features.size(); ++i) {
          CAPTURE(b, i);
          REQUIRE(sorted(gpu_hits[b].list(i)) == sorted(cpu_hits[b].list(i)));
        }
      }
    }
    for (const pipeline::BatchHits& hits : gpu_hits) total += hits.locations.size();
    const pipeline::GpuPartStats stats = gpu->stats();
    CHECK(stats.parts_uploaded == count);
    CHECK(stats.largest_part_bytes > 0);
  }
  return total;
}

// What the CPU classifier on the whole database gives each read of `batches`;
// `classified` counts those classified.
std::vector<std::vector<pipeline::ReadResult>> whole_database_results(
    const db::Database& db, const pipeline::ClassifierOptions& options,
    const std::vector<std::vector<pipeline::ReadView>>& batches, std::uint64_t& classified) {
  const pipeline::Classifier whole(db, options);
  pipeline::ClassifierScratch scratch;
  std::vector<std::vector<pipeline::ReadResult>> expected(batches.size());
  classified = 0;
  for (std::size_t b = 0; b < batches.size(); ++b)
    for (const pipeline::ReadView& read : batches[b]) {
      expected[b].push_back(whole.classify(read.mate1, read.mate2, scratch));
      classified += expected[b].back().assignment.taxid != 0;
    }
  return expected;
}

// Results as many as the batches' reads, and spans of them.
struct BatchResults {
  std::vector<std::vector<pipeline::ReadResult>> results;
  std::vector<std::span<pipeline::ReadResult>> spans;
  explicit BatchResults(const std::vector<std::vector<pipeline::ReadView>>& batches)
      : results(batches.size()) {
    for (std::size_t b = 0; b < batches.size(); ++b) {
      results[b].resize(batches[b].size());
      spans.emplace_back(results[b]);
    }
  }
};

void require_same_results(const std::vector<std::vector<pipeline::ReadResult>>& expected,
                          const std::vector<std::vector<pipeline::ReadResult>>& results) {
  REQUIRE(results.size() == expected.size());
  for (std::size_t b = 0; b < expected.size(); ++b)
    for (std::size_t r = 0; r < expected[b].size(); ++r) {
      CAPTURE(b, r);
      test::require_same(expected[b][r], results[b][r]);
    }
}

// For 1-3 part plans (with 3 parts, 2 shards per GPU), walked forwards and
// then backwards by one collector: the reads decided on the GPU as the CPU
// classifier decides them on the whole database. Returns the reads classified.
std::uint64_t require_same_decisions(const db::Database& db, const fs::path& file,
                                     const pipeline::ClassifierOptions& options) {
  const db::PartialDatabase partial(file, 2);
  std::vector<std::string> text;
  const auto batches = read_batches(text);
  const pipeline::Classifier metadata(partial.metadata(), options);
  std::uint64_t classified = 0;
  const auto expected = whole_database_results(db, options, batches, classified);
  std::vector<std::span<const pipeline::ReadView>> reads(batches.begin(), batches.end());
  for (std::size_t count : {1u, 2u, 3u}) {
    pipeline::ShardLayout layout;
    layout.shards_per_gpu = count == 3 ? 2 : 1;
    const auto gpu = pipeline::make_gpu_hit_collector(db.targets, layout);
    pipeline::PartReadDecider* decider = gpu->read_decider(options);
    REQUIRE(decider != nullptr);
    const std::vector<db::IndexPart> parts = partial.plan_parts(count);
    REQUIRE(parts.size() == count);
    for (bool backwards : {false, true}) {
      CAPTURE(count, backwards);
      BatchResults out(batches);
      decider->start(metadata, reads);
      for (std::size_t i = 0; i < parts.size(); ++i) {
        const std::size_t p = backwards ? parts.size() - 1 - i : i;
        const db::FeatureIndex part = partial.load_part(parts[p], 2);
        gpu->use_part(part, parts[p]);
        decider->collect();
        CHECK(decider->held_bytes() > 0);
      }
      decider->finish(out.spans);
      CHECK(decider->held_bytes() == 0);
      require_same_results(expected, out.results);
    }
    CHECK(gpu->stats().kept_walks == 2);
    CHECK(gpu->stats().kept_hits > 0);
  }
  return classified;
}

// The MPI engine's way (pipeline/query/mpi_engine.hpp): each part of 2- and
// 3-part plans held by a collector of its own (a rank), the reads started
// on every one; those of parts 1.. take the lists their part keeps
// (take_kept), the collector of part 0 adds them (before and after its own
// collect()) and decides: every read as the CPU classifier on the whole
// database. Returns the hits the other parts' lists carried.
std::uint64_t require_same_decisions_across(const db::Database& db, const fs::path& file,
                                            const pipeline::ClassifierOptions& options) {
  const db::PartialDatabase partial(file, 2);
  REQUIRE(partial.longest_list() <= 255);  // a list's length travels in a byte
  std::vector<std::string> text;
  const auto batches = read_batches(text);
  const pipeline::Classifier metadata(partial.metadata(), options);
  std::uint64_t classified = 0;
  const auto expected = whole_database_results(db, options, batches, classified);
  std::vector<std::span<const pipeline::ReadView>> reads(batches.begin(), batches.end());
  std::uint64_t carried = 0;
  for (std::size_t count : {2u, 3u}) {
    CAPTURE(count);
    const std::vector<db::IndexPart> parts = partial.plan_parts(count);
    REQUIRE(parts.size() == count);
    std::vector<std::unique_ptr<pipeline::GpuHitCollector>> ranks;
    std::vector<pipeline::KeptLists> lists(count);
    for (std::size_t p = 0; p < count; ++p) {
      ranks.push_back(pipeline::make_gpu_hit_collector(db.targets, {}));
      const db::FeatureIndex part = partial.load_part(parts[p], 2);
      ranks[p]->use_part(part, parts[p]);
    }
    for (std::size_t p = 1; p < count; ++p) {
      pipeline::PartReadDecider& decider = *ranks[p]->read_decider(options);
      decider.start(metadata, reads);
      decider.collect();
      decider.take_kept(lists[p]);
      CHECK(decider.held_bytes() == 0);
      CHECK(lists[p].chunk_hits.size() > 1);
      CHECK(!lists[p].hits.empty());
      carried += lists[p].hits.size();
    }
    pipeline::PartReadDecider& decider = *ranks[0]->read_decider(options);
    BatchResults out(batches);
    decider.start(metadata, reads);
    decider.add_kept(lists[count - 1]);
    decider.collect();
    for (std::size_t p = 1; p + 1 < count; ++p) decider.add_kept(lists[p]);
    decider.finish(out.spans);
    require_same_results(expected, out.results);
    // Lists of other reads are refused.
    decider.start(metadata, std::span(reads).first(2));
    CHECK_THROWS_AS(decider.add_kept(lists[1]), std::invalid_argument);
  }
  return carried;
}

}  // namespace

TEST_CASE("GPU part decisions: test_data, 1-3 parts, each read as the CPU on the whole database") {
  const db::Database& db = test::test_database();
  test::ScratchDir dir("gpu_part_decisions");
  db::save(db, dir / "test.mwdb");
  CHECK(require_same_decisions(db, dir / "test.mwdb", {}) > 1000);
  pipeline::ClassifierOptions evidence;  // the feature taxa from the device
  evidence.evidence = true;
  evidence.confidence_millionths = 200000;
  CHECK(require_same_decisions(db, dir / "test.mwdb", evidence) > 100);
  pipeline::ClassifierOptions hashes;  // --report-minimizer-data: the host's
  hashes.found_features = true;
  CHECK(pipeline::make_gpu_hit_collector(db.targets, {})->read_decider(hashes) == nullptr);
}

TEST_CASE("GPU part decisions: databases of random parameters, as the CPU on the whole database") {
  std::mt19937_64 rng(20261127);
  for (int round = 0; round < 2; ++round) {
    const pipeline::BuildOptions b = test::random_build_options(rng, 300);
    INFO(test::parameters_of(b));
    const db::Database db = pipeline::build_database(b);
    test::ScratchDir dir("gpu_part_decisions_random");
    db::save(db, dir / "random.mwdb");
    pipeline::ClassifierOptions evidence;
    evidence.evidence = true;
    require_same_decisions(db, dir / "random.mwdb", evidence);
  }
}

TEST_CASE("GPU part decisions across processes: kept lists taken and added, as the CPU") {
  const db::Database& db = test::test_database();
  test::ScratchDir dir("gpu_part_decisions_across");
  db::save(db, dir / "test.mwdb");
  CHECK(require_same_decisions_across(db, dir / "test.mwdb", {}) > 1000);
  pipeline::ClassifierOptions evidence;
  evidence.evidence = true;
  evidence.confidence_millionths = 200000;
  CHECK(require_same_decisions_across(db, dir / "test.mwdb", evidence) > 1000);
}

TEST_CASE("GPU part hits: test_data, 1-3 parts, equal the CPU's read by read") {
  const db::Database& db = test::test_database();
  test::ScratchDir dir("gpu_part_hits");
  db::save(db, dir / "test.mwdb");
  CHECK(require_same_hits(db, dir / "test.mwdb") > 10000);
}

TEST_CASE("GPU part hits: databases of random parameters equal the CPU's read by read") {
  std::mt19937_64 rng(20261124);
  for (int round = 0; round < 2; ++round) {
    const pipeline::BuildOptions b = test::random_build_options(rng, 300);
    INFO(test::parameters_of(b));
    const db::Database db = pipeline::build_database(b);
    test::ScratchDir dir("gpu_part_hits_random");
    db::save(db, dir / "random.mwdb");
    CHECK(require_same_hits(db, dir / "random.mwdb") > 1000);
  }
}
