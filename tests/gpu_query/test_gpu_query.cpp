// GPU query == CPU query, read by read: the same top candidates, hit and
// window counts and assignment, whatever the batch size, chunk size, read
// lengths (empty, shorter than k, 10 kbp+) and classifier options; and
// `run_query` with the GPU engine writes the same files as with the CPU one.
#include <filesystem>
#include <fstream>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "same_result.hpp"
#include "db/database.hpp"
#include "pipeline/build/build.hpp"
#include "pipeline/query/classifier.hpp"
#include "pipeline/query/gpu_query.hpp"
#include "pipeline/query/query.hpp"
#include "pipeline/shard_layout.hpp"

#include "../query/query_test_data.hpp"
#include "../query/sketched_database.hpp"

namespace fs = std::filesystem;
using namespace metawarp;

namespace {

struct Read {
  std::string mate1, mate2;
};

fs::path scratch_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("metawarp_gpu_query_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

using test::fastq_sequences;
using test::require_same;

// All bases of the FASTA files in a folder, records concatenated.
std::string fasta_bases(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::string bases;
  for (const auto& f : files) {
    std::ifstream in(f);
    std::string line;
    while (std::getline(in, line))
      if (!line.empty() && line[0] != '>') bases += line;
  }
  return bases;
}

db::Database test_data_database(const sketch::SketchParams& sketch = {},
                                std::uint32_t cap = 254) {
  const fs::path data = METAWARP_TEST_DATA_DIR;
  pipeline::BuildOptions options;
  options.references = {(data / "genomes").string()};
  options.taxonomy_dir = data / "taxonomy";
  options.seqid2taxid_files = {(data / "seqid2taxid.map").string()};
  options.params.sketch = sketch;
  options.params.max_locations_per_feature = cap;
  options.quiet = true;
  options.threads = 2;
  return pipeline::build_database(options);
}

std::vector<Read> test_data_reads(bool paired) {
  const fs::path data = METAWARP_TEST_DATA_DIR;
  const auto r1 = fastq_sequences(data / "reads_R1.fq");
  const auto r2 = fastq_sequences(data / "reads_R2.fq");
  REQUIRE(r1.size() == r2.size());
  REQUIRE(r1.size() > 1000);
  std::vector<Read> reads;
  for (std::size_t i = 0; i < r1.size(); ++i) reads.push_back({r1[i], paired ? r2[i] : ""});
  return reads;
}

// Reads from the genomes (with substitutions, N runs, lower case), random
// reads, long reads (10-40 kbp), empty reads and reads shorter than k.
std::vector<Read> mixed_reads(const std::string& genome, bool paired, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto piece = [&](std::size_t length) {
    length = std::min(length, genome.size());
    std::string s = genome.substr(rng() % (genome.size() - length + 1), length);
    for (auto& c : s) {
      const auto roll = rng() % 1000;
      if (roll < 5) c = "ACGT"[rng() % 4];
      else if (roll < 7) c = 'a' + (c == 'A' ? 0 : c == 'C' ? 2 : c == 'G' ? 6 : 19);
    }
    if (length > 60 && rng() % 3 == 0) {  // an N run
      const std::size_t at = rng() % (length - 40);
      for (std::size_t i = 0; i < 1 + rng() % 30; ++i) s[at + i] = 'N';
    }
    return s;
  };
  auto random_sequence = [&](std::size_t length) {
    std::string s(length, 'A');
    for (auto& c : s) c = "ACGTN"[rng() % 5 == 4 && rng() % 8 == 0 ? 4 : rng() % 4];
    return s;
  };
  std::vector<Read> reads;
  for (int i = 0; i < 600; ++i) {
    Read r;
    switch (rng() % 10) {
      case 0: r.mate1 = random_sequence(50 + rng() % 200); break;
      case 1: r.mate1 = ""; break;
      case 2: r.mate1 = piece(1 + rng() % 20); break;           // shorter than k (mostly)
      case 3: r.mate1 = piece(10000 + rng() % 30000); break;    // long read
      default: r.mate1 = piece(100 + rng() % 200); break;
    }
    if (paired) {
      const auto roll = rng() % 10;
      r.mate2 = roll == 0 ? "" : roll == 1 ? random_sequence(150) : piece(80 + rng() % 200);
    }
    reads.push_back(std::move(r));
  }
  return reads;
}

// The GPU bytes of db's index in `layout`, as `info` counts them: every
// shard's arrays and lookup, and on every GPU the window bases and the table
// of all shards.
std::uint64_t layout_bytes(const db::Database& db, const pipeline::ShardLayout& layout) {
  const auto& offsets = db.index.offsets();
  const std::vector<std::uint64_t> cut =
      pipeline::balanced_cuts(std::span(offsets.data(), offsets.size()), layout.shards());
  std::uint64_t bytes =
      layout.devices.size() * pipeline::gpu_per_device_bytes(db.targets.size(), layout.shards());
  for (unsigned s = 0; s < layout.shards(); ++s)
    bytes += pipeline::gpu_shard_bytes(cut[s + 1] - cut[s], offsets[cut[s + 1]] - offsets[cut[s]]);
  return bytes;
}

// Classifies `reads` on the CPU (Classifier, read by read) and on the GPU in
// batches of each size, and requires identical results. Returns the number
// of CPU-classified reads, so callers can check the test is not vacuous.
std::size_t require_gpu_matches_cpu(const db::Database& db, const std::vector<Read>& reads,
                                    const pipeline::ClassifierOptions& options,
                                    const pipeline::GpuQueryOptions& gpu,
                                    std::initializer_list<std::size_t> batch_sizes) {
  const pipeline::Classifier classifier(db, options);
  pipeline::ClassifierScratch scratch;
  std::vector<pipeline::ReadResult> cpu;
  std::vector<pipeline::ReadView> views;
  std::size_t classified = 0;
  for (const Read& r : reads) {
    cpu.push_back(classifier.classify(r.mate1, r.mate2, scratch));
    classified += cpu.back().assignment.taxid != 0;
    views.push_back({r.mate1, r.mate2});
  }
  const auto engine = pipeline::make_gpu_query_engine(db, options, gpu);
  const pipeline::GpuQueryStats stats = engine->stats();
  // One shard: what `info` says; more: what it says for the layout (each
  // shard's lookup sized on its own), less the table entries of empty shards
  // (the kernels' table of shards skips them).
  const std::uint64_t one_shard = pipeline::gpu_database_bytes(db);
  CHECK(stats.shards == gpu.layout.shards());
  if (gpu.layout.single()) REQUIRE(stats.database_bytes == one_shard);
  const std::uint64_t laid_out = layout_bytes(db, gpu.layout);
  REQUIRE(stats.database_bytes <= laid_out);
  REQUIRE(stats.database_bytes + gpu.layout.devices.size() * gpu.layout.shards() *
                                     pipeline::gpu_shard_table_bytes >= laid_out);
  const auto lane = engine->make_classifier();
  for (std::size_t batch : batch_sizes) {
    CAPTURE(batch, gpu.chunk_bases);
    std::vector<pipeline::ReadResult> results(reads.size());
    for (std::size_t first = 0; first < reads.size(); first += batch) {
      const std::size_t n = std::min(batch, reads.size() - first);
      lane->classify(std::span(views).subspan(first, n), std::span(results).subspan(first, n));
    }
    for (std::size_t i = 0; i < reads.size(); ++i) {
      CAPTURE(i, reads[i].mate1.size(), reads[i].mate2.size());
      require_same(cpu[i], results[i]);
    }
  }
  return classified;
}

}  // namespace

TEST_CASE("GPU query of test_data reads matches the CPU read by read") {
  const db::Database db = test_data_database();
  const bool paired = GENERATE(false, true);
  CAPTURE(paired);
  const auto reads = test_data_reads(paired);
  pipeline::GpuQueryOptions gpu;
  const std::size_t classified =
      require_gpu_matches_cpu(db, reads, {}, gpu, {reads.size(), 4096, 333, 1});
  CHECK(classified > reads.size() / 2);
  gpu.chunk_bases = 2000;  // a few reads per GPU chunk
  require_gpu_matches_cpu(db, reads, {}, gpu, {1000});
}

TEST_CASE("GPU query with --confidence and the evidence matches the CPU read by read") {
  const db::Database db = test_data_database();
  const bool paired = GENERATE(false, true);
  const std::uint32_t confidence = GENERATE(0u, 100000u, 400000u, 1000000u);
  CAPTURE(paired, confidence);
  const auto reads = test_data_reads(paired);
  pipeline::ClassifierOptions options;
  options.evidence = true;
  options.confidence_millionths = confidence;
  pipeline::GpuQueryOptions gpu;
  require_gpu_matches_cpu(db, reads, options, gpu, {reads.size(), 333});
}

TEST_CASE("GPU query in 1-4 shards on one GPU matches the CPU read by read") {
  const fs::path data = METAWARP_TEST_DATA_DIR;
  const std::string genome = fasta_bases(data / "genomes");
  // test_data's database, and one with small windows and a low cap (lists at
  // the cap, many hits per read).
  const bool small_windows = GENERATE(false, true);
  const db::Database db =
      small_windows ? test_data_database({12, 40, 8}, 5) : test_data_database();
  const auto reads = mixed_reads(genome, /*paired=*/true, 31);
  const auto test_reads = test_data_reads(/*paired=*/true);
  for (unsigned shards : {1u, 2u, 3u, 4u}) {
    CAPTURE(small_windows, shards);
    pipeline::GpuQueryOptions gpu;
    gpu.layout.shards_per_gpu = shards;
    require_gpu_matches_cpu(db, reads, {}, gpu, {reads.size(), 50});
    CHECK(require_gpu_matches_cpu(db, test_reads, {}, gpu, {test_reads.size()}) >
          test_reads.size() / 2);
  }
  // What the compact layout costs per reference base, for the record.
  std::uint64_t bases = 0;
  for (const db::Target& t : db.targets) bases += t.length;
  const auto engine = pipeline::make_gpu_query_engine(db, {}, {});
  WARN("GPU database: " << engine->stats().database_bytes << " bytes for " << bases
                        << " bases, " << double(engine->stats().database_bytes) / double(bases) *
                                             1e9 / double(1 << 30)
                        << " GiB per Gbp (" << db.index.feature_count() << " features, "
                        << db.index.location_count() << " locations)");
}

TEST_CASE("GPU query matches the CPU on random, long, short and empty reads") {
  const db::Database db = test_data_database();
  const std::string genome = fasta_bases(fs::path(METAWARP_TEST_DATA_DIR) / "genomes");
  const bool paired = GENERATE(false, true);
  CAPTURE(paired);
  const auto reads = mixed_reads(genome, paired, paired ? 11 : 12);
  pipeline::GpuQueryOptions gpu;
  CHECK(require_gpu_matches_cpu(db, reads, {}, gpu, {reads.size(), 50, 7}) > 100);
  gpu.chunk_bases = 5000;  // long reads become chunks of their own
  require_gpu_matches_cpu(db, reads, {}, gpu, {reads.size()});
  pipeline::ClassifierOptions evidence;  // the evidence of N runs, long and empty reads
  evidence.confidence_millionths = 200000;
  require_gpu_matches_cpu(db, reads, evidence, gpu, {reads.size(), 7});
}

// The default database samples minimizers (content-defined: a read's
// features are sampled by the same rule, the read whole; automatic hit-min 2
// / 4 and hit-diff 0): the GPU query gives the CPU's results read by read,
// with the evidence and --confidence, in one and in several shards.
TEST_CASE("GPU query of a minimizer database (the default) matches the CPU read by read") {
  const pipeline::BuildOptions defaults;
  REQUIRE(defaults.params.sketch.sampling == sketch::Sampling::minimizer);
  const db::Database db = test_data_database(defaults.params.sketch);
  const std::string genome = fasta_bases(fs::path(METAWARP_TEST_DATA_DIR) / "genomes");
  const bool paired = GENERATE(false, true);
  CAPTURE(paired);
  const auto test_reads = test_data_reads(paired);
  const auto reads = mixed_reads(genome, paired, paired ? 41 : 42);
  pipeline::ClassifierOptions evidence;
  evidence.confidence_millionths = 200000;
  for (unsigned shards : {1u, 3u}) {
    CAPTURE(shards);
    pipeline::GpuQueryOptions gpu;
    gpu.layout.shards_per_gpu = shards;
    CHECK(require_gpu_matches_cpu(db, test_reads, {}, gpu, {test_reads.size(), 333}) >
          test_reads.size() / 2);
    CHECK(require_gpu_matches_cpu(db, reads, {}, gpu, {reads.size(), 7}) > 100);
    require_gpu_matches_cpu(db, reads, evidence, gpu, {reads.size()});
  }
  pipeline::GpuQueryOptions small_chunks;
  small_chunks.chunk_bases = 5000;  // long reads become chunks of their own
  require_gpu_matches_cpu(db, reads, evidence, small_chunks, {reads.size()});
}

// The matched-bases rule (classify/matched_bases.hpp): reads holding exact
// pieces of 16 to 90 bases of a genome in random bases, as single reads and
// as pairs (a piece in each mate: mate 2's positions after mate 1's bases).
// With --hit-min 1 the short pieces have their hits, so the rule decides:
// the GPU's matched bases, and so its calls, are the CPU's.
TEST_CASE("GPU query computes the matched bases as the CPU does") {
  std::mt19937 rng(2626);
  db::Database db;
  db.params = pipeline::BuildOptions{}.params;
  REQUIRE(db.params.sketch.sampling != sketch::Sampling::window);
  db.taxonomy = taxonomy::Taxonomy::from_nodes({
      {1, 1, taxonomy::Rank::none, "root"},
      {100, 1, taxonomy::Rank::species, "G a"},
      {200, 1, taxonomy::Rank::species, "G b"},
  });
  const std::vector<std::string> genomes{test::random_dna(20000, rng),
                                         test::random_dna(20000, rng)};
  test::sketch_targets(db, genomes, {100, 200});
  const bool paired = GENERATE(false, true);
  CAPTURE(paired);
  auto planted = [&] {
    const std::string& g = genomes[rng() % genomes.size()];
    const std::size_t length = 16 + rng() % 75;
    return test::random_dna(rng() % 80, rng) + g.substr(rng() % (g.size() - length), length) +
           test::random_dna(rng() % 80, rng);
  };
  std::vector<Read> reads;
  for (int i = 0; i < 600; ++i) reads.push_back({planted(), paired ? planted() : ""});
  pipeline::ClassifierOptions options;
  options.hit_min = 1;
  const pipeline::Classifier classifier(db, options);
  pipeline::ClassifierScratch scratch;
  std::size_t voided = 0, kept = 0;
  for (const Read& r : reads) {
    const pipeline::ReadResult result = classifier.classify(r.mate1, r.mate2, scratch);
    REQUIRE(result.match.needed > 0);
    if (result.candidate_count == 0) continue;
    voided += result.match.matched < result.match.needed;
    kept += result.assignment.taxid != 0;
  }
  CHECK(voided > 10);  // the rule acts here (83 single reads, 25 pairs)...
  CHECK(kept > 100);   // ...and lets the long pieces through
  for (unsigned shards : {1u, 3u}) {
    CAPTURE(shards);
    pipeline::GpuQueryOptions gpu;
    gpu.layout.shards_per_gpu = shards;
    require_gpu_matches_cpu(db, reads, options, gpu, {reads.size(), 33});
  }
}

// A read's feature counts at most once per candidate
// (classify::repeats_within_span): targets made of repeats (a unit again
// after gaps of 0 to 3 windows) give many features locations a few windows
// apart in one target. The GPU drops the same hits as the CPU, in one and in
// several shards, singles and pairs, with wide insert sizes.
TEST_CASE("GPU query drops a feature's repeats within the span as the CPU does") {
  std::mt19937 rng(26);
  db::Database db;
  db.params = pipeline::BuildOptions{}.params;
  db.taxonomy = taxonomy::Taxonomy::from_nodes({
      {1, 1, taxonomy::Rank::none, "root"},
      {100, 1, taxonomy::Rank::species, "G a"},
      {200, 1, taxonomy::Rank::species, "G b"},
  });
  const std::uint64_t stride = db.params.sketch.stride();
  std::vector<std::string> genomes;
  for (int t = 0; t < 4; ++t) {
    const std::string unit = test::random_dna(40 + rng() % 200, rng);
    std::string g = test::random_dna(rng() % 300, rng);
    for (int copy = 0; copy < 12; ++copy) g += unit + test::random_dna(rng() % (3 * stride), rng);
    genomes.push_back(g);
  }
  genomes.push_back(genomes[0].substr(0, genomes[0].size() / 2));  // shares t0's repeats
  test::sketch_targets(db, genomes, {100, 200, 100, 200, 200});
  const bool paired = GENERATE(false, true);
  CAPTURE(paired);
  std::vector<Read> reads;
  for (int i = 0; i < 400; ++i) {
    const std::string& g = genomes[rng() % genomes.size()];
    auto piece = [&](std::size_t length) {
      length = std::min(length, g.size() - 1);
      return g.substr(rng() % (g.size() - length), length);
    };
    reads.push_back({piece(60 + rng() % 240), paired ? piece(60 + rng() % 240) : ""});
  }
  // The rule acts here: the CPU's hits of some reads are fewer than their
  // features' locations.
  const pipeline::Classifier classifier(db, {});
  pipeline::ClassifierScratch scratch;
  std::size_t dropping = 0;
  for (const Read& r : reads) {
    std::vector<sketch::feature_t> features;
    std::vector<std::uint32_t> positions;
    classifier.sketch_read(r.mate1, r.mate2, features, positions);
    std::size_t locations = 0;
    for (const sketch::feature_t f : features) locations += db.index.find(f).size();
    dropping += classifier.classify(r.mate1, r.mate2, scratch).hits < locations;
  }
  CHECK(dropping > reads.size() / 4);
  pipeline::ClassifierOptions wide;
  wide.insert_size = 5 * stride;
  for (unsigned shards : {1u, 3u}) {
    CAPTURE(shards);
    pipeline::GpuQueryOptions gpu;
    gpu.layout.shards_per_gpu = shards;
    CHECK(require_gpu_matches_cpu(db, reads, {}, gpu, {reads.size(), 33}) > reads.size() / 2);
    require_gpu_matches_cpu(db, reads, wide, gpu, {reads.size()});
  }
}

TEST_CASE("GPU query matches the CPU for other classifier options and sketch parameters") {
  const std::string genome = fasta_bases(fs::path(METAWARP_TEST_DATA_DIR) / "genomes");
  // Small k and windows with a low cap: many hits per read, lists at the cap.
  const db::Database db = test_data_database({12, 40, 8}, 5);
  const bool paired = GENERATE(false, true);
  CAPTURE(paired);
  const auto reads = mixed_reads(genome, paired, 21);
  pipeline::ClassifierOptions options;
  for (auto [candidates, diff, insert] : {std::tuple{1u, 0u, std::uint64_t(0)},
                                          {16u, 5u, std::uint64_t(2000)},
                                          {3u, 1u, std::uint64_t(500)}}) {
    options.max_candidates = candidates;
    options.hit_diff = diff;
    options.insert_size = insert;
    options.lowest = candidates == 3 ? taxonomy::CanonicalRank::species
                                     : taxonomy::CanonicalRank::sequence;
    CAPTURE(candidates, diff, insert);
    require_gpu_matches_cpu(db, reads, options, {}, {reads.size(), 64});
  }
}

TEST_CASE("run_query with the GPU engine writes the same outputs as with the CPU") {
  const db::Database db = test_data_database();
  const fs::path data = METAWARP_TEST_DATA_DIR;
  const fs::path dir = scratch_dir("run_query");
  const bool paired = GENERATE(false, true);
  // --confidence and the evidence column: the GPU path's reads against the
  // CPU's, read for read (0.3 lifts or drops some reads of this set).
  const std::uint32_t confidence = GENERATE(0u, 300000u);
  CAPTURE(paired, confidence);
  pipeline::QueryOptions options;
  options.reads = {(data / "reads_R1.fq").string()};
  if (paired) options.reads.push_back((data / "reads_R2.fq").string());
  options.top_hits = true;
  options.classifier.confidence_millionths = confidence;
  options.kraken_output = (dir / "cpu.kraken").string();  // the engines need the evidence
  options.threads = 3;
  auto run = [&](const std::string& name, const pipeline::QueryEngine* engine, std::size_t batch) {
    options.batch_size = batch;
    options.output = (dir / (name + ".tsv")).string();
    options.kraken_output = (dir / (name + ".kraken")).string();
    options.report = (dir / (name + ".report")).string();
    const auto summary = pipeline::run_query(db, options, engine);
    CHECK(summary.reads == 2000);
    return read_file(options.output) + read_file(options.kraken_output) +
           read_file(options.report);
  };
  const std::string cpu = run("cpu", nullptr, 4096);
  REQUIRE(cpu.size() > 2000 * 20);
  for (std::uint32_t lanes : {1u, 4u}) {
    pipeline::GpuQueryOptions gpu;
    gpu.lanes = lanes;
    const auto engine = pipeline::make_gpu_query_engine(db, pipeline::engine_options(options), gpu);
    for (std::size_t batch : {std::size_t(4096), std::size_t(77)}) {
      CAPTURE(lanes, batch);
      REQUIRE(run("gpu", engine.get(), batch) == cpu);
    }
    const auto stats = engine->stats();
    CHECK(stats.reads == 2 * 2000);
    CHECK(stats.lanes >= 1);
    CHECK(stats.lanes <= lanes);
  }
}
