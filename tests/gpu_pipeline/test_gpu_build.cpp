// GPU build == CPU build, byte for byte, whatever the table kind and batch size,
// with every sampling: minhash windows, FracMinHash and minimizers (the
// default), whose windows read up to W - 1 k-mers beyond their ends, so the
// pieces of a target cut over batches carry that context; a GPU build that
// cannot fit says so before doing any work.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "catch.hpp"
#include "error_of.hpp"
#include "db/database.hpp"
#include "metawarp/hash/fmix.hpp"
#include "metawarp/sketch/hash.hpp"
#include "metawarp/sketch/kmer.hpp"
#include "metawarp/sketch/sampling.hpp"
#include "metawarp/sketch/sketch.hpp"
#include "metawarp/tables/sentinels.hpp"
#include "pipeline/build/build.hpp"

namespace fs = std::filesystem;
using namespace metawarp;

namespace {

// The samplings, with their default k and s.
const sketch::SketchParams window_sketch =
    sketch::default_sketch_params(sketch::Sampling::window, 0);
const sketch::SketchParams scaled_sketch =
    sketch::default_sketch_params(sketch::Sampling::scaled, 8);
const sketch::SketchParams minimizer_sketch = sketch::default_sketch_params(
    sketch::default_sampling, sketch::default_sampling_parameter);

sketch::SketchParams minimizers(std::uint32_t k, std::uint32_t w, std::uint32_t s,
                                std::uint32_t run) {
  return sketch::SketchParams{k, w, s, sketch::Sampling::minimizer, run};
}

// The smallest batch the GPU build takes: one window and its context either
// side (then every piece holds one window, and every window is next to a cut).
std::uint64_t smallest_batch(const sketch::SketchParams& p) {
  return std::uint64_t(p.window) + p.k + 2 * sketch::context_kmers(p);
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path scratch_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("metawarp_gpu_build_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Builds with the CPU executor and with the GPU executor (both tables, each
// batch size: 0 stands for the smallest) and requires identical database files.
void require_identical_builds(
    pipeline::BuildOptions options, const fs::path& dir,
    std::initializer_list<std::uint64_t> batches = {std::uint64_t(64) << 20, 4096, 300}) {
  options.quiet = true;
  options.threads = 3;
  db::save(pipeline::build_database(options), dir / "cpu.mwdb");
  const std::string cpu = read_file(dir / "cpu.mwdb");
  for (auto table : {pipeline::BuildTable::multi_value, pipeline::BuildTable::bucket_list}) {
    for (std::uint64_t batch : batches) {
      if (batch == 0) batch = smallest_batch(options.params.sketch);
      options.gpu.table = table;
      options.gpu.batch_bases = batch;
      CAPTURE(int(table), batch);
      db::save(pipeline::build_database(options, nullptr, pipeline::make_gpu_build_executor),
               dir / "gpu.mwdb");
      REQUIRE(read_file(dir / "gpu.mwdb") == cpu);
    }
  }
}

// Random genomes with N runs, lower case and a few IUPAC codes; one long
// target spans many batches, one is shorter than k; the last is dense with
// short N runs (one every few dozen bases: next to every cut of a target
// into pieces, whatever the window).
fs::path write_random_references(const fs::path& dir, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const fs::path path = dir / "random.fa";
  std::ofstream out(path);
  const char alphabet[] = "ACGTACGTACGTacgtNRY";
  const std::size_t lengths[] = {200000, 15, 5000, 127, 128, 90000, 3, 20000};
  int record = 0;
  for (std::size_t length : lengths) {
    ++record;
    out << ">rand" << record << " taxid|" << 9000 + record << "\n";
    std::string seq(length, 'A');
    for (auto& c : seq) c = alphabet[rng() % 16];  // ACGT in both cases
    for (int runs = 0; runs < 5 && length > 100; ++runs) {  // N runs and IUPAC codes
      const std::size_t at = rng() % (length - 50);
      for (std::size_t i = 0; i < 1 + rng() % 40; ++i) seq[at + i] = alphabet[16 + rng() % 3];
    }
    if (length == 20000)
      for (std::size_t at = rng() % 30; at + 3 < length; at += 20 + rng() % 40)
        for (std::size_t i = 0; i < 1 + rng() % 3; ++i) seq[at + i] = 'N';
    for (std::size_t i = 0; i < seq.size(); i += 70) out << seq.substr(i, 70) << "\n";
  }
  return path;
}

using test::error_of;

}  // namespace

TEST_CASE("GPU build of test_data is byte-identical to the CPU build") {
  const fs::path data = METAWARP_TEST_DATA_DIR;
  pipeline::BuildOptions options;
  options.references = {(data / "genomes").string()};
  options.taxonomy_dir = data / "taxonomy";
  options.seqid2taxid_files = {(data / "seqid2taxid.map").string()};
  // The default database.
  REQUIRE(options.params.sketch.sampling == minimizer_sketch.sampling);
  REQUIRE(options.params.sketch.sampling_parameter == minimizer_sketch.sampling_parameter);
  for (const sketch::SketchParams& p : {minimizer_sketch, window_sketch, scaled_sketch}) {
    options.params.sketch = p;
    CAPTURE(int(p.sampling));
    require_identical_builds(options, scratch_dir("test_data"));
  }
}

// Minimizer windows read W - 1 k-mers beyond their ends: cut into pieces of
// one window each (the smallest batch), next to N runs, with W up to
// max_minimizer_window and W beyond a short target's k-mers, the GPU
// build is still the CPU's.
TEST_CASE("GPU build with minimizers matches the CPU, targets cut into many pieces") {
  const fs::path dir = scratch_dir("minimizers");
  pipeline::BuildOptions options;
  options.references = {write_random_references(dir, 26).string()};
  options.allow_no_taxonomy = true;
  for (const sketch::SketchParams& p :
       {minimizer_sketch, minimizers(16, 127, 64, sketch::max_minimizer_window),
        minimizers(32, 40, 64, sketch::max_minimizer_window - 1), minimizers(5, 20, 3, 7),
        minimizers(12, 40, 8, 2), minimizers(20, 127, 6, 16)}) {
    options.params.sketch = p;
    options.params.max_locations_per_feature = p.sketch_size == 8 ? 3 : 254;  // the cap too
    CAPTURE(p.k, p.window, p.sketch_size, p.sampling_parameter);
    require_identical_builds(options, dir, {std::uint64_t(64) << 20, 0, 1000});
  }
}

// A batch smaller than a window and its context is refused before any work.
TEST_CASE("GPU build refuses a batch that cannot hold a window and its context") {
  const fs::path data = METAWARP_TEST_DATA_DIR;
  pipeline::BuildOptions options;
  options.quiet = true;
  options.references = {(data / "genomes").string()};
  options.allow_no_taxonomy = true;
  options.gpu.batch_bases = smallest_batch(options.params.sketch) - 1;
  const std::string message = error_of(
      [&] { pipeline::build_database(options, nullptr, pipeline::make_gpu_build_executor); });
  CHECK(message.find("--batch-size must hold at least one window and its context") !=
        std::string::npos);
}

TEST_CASE("GPU build of random sequences with N runs matches the CPU, for several k, w, s") {
  const fs::path dir = scratch_dir("random");
  pipeline::BuildOptions options;
  options.references = {write_random_references(dir, 7).string()};
  options.allow_no_taxonomy = true;  // the taxids in the headers are not looked up
  for (auto [k, w, s] : {std::tuple{16u, 127u, 16u}, {32u, 64u, 64u}, {5u, 20u, 3u}}) {
    options.params.sketch = {k, w, s};
    options.params.max_locations_per_feature = 3;  // the cap is exercised too
    CAPTURE(k, w, s);
    require_identical_builds(options, dir);
  }
  options.params.sketch = sketch::SketchParams{16, 127, 64, sketch::Sampling::scaled, 4};
  require_identical_builds(options, dir);
}

TEST_CASE("GPU build with too little GPU memory stops before reading, saying what it needs") {
  const fs::path data = METAWARP_TEST_DATA_DIR;
  pipeline::BuildOptions options;
  options.quiet = true;
  options.references = {(data / "genomes").string()};
  options.allow_no_taxonomy = true;
  options.params.sketch = window_sketch;
  options.gpu.memory_limit = 1 << 20;
  const std::string message = error_of(
      [&] { pipeline::build_database(options, nullptr, pipeline::make_gpu_build_executor); });
  CHECK(message.find("needs about") != std::string::npos);
  CHECK(message.find("--device cpu") != std::string::npos);
}

// One table, or shards' tables on one GPU (issue 28's multi-GPU executor).
TEST_CASE("GPU build with a table too small reports it instead of truncating") {
  const fs::path data = METAWARP_TEST_DATA_DIR;
  pipeline::BuildOptions options;
  options.quiet = true;
  options.references = {(data / "genomes").string()};
  options.allow_no_taxonomy = true;
  options.params.sketch = window_sketch;
  options.gpu.table_capacity = 1000;  // far fewer pairs than test_data has
  for (unsigned shards : {1u, 2u}) {
    CAPTURE(shards);
    options.gpu.layout = pipeline::ShardLayout{{0}, shards};
    options.gpu.layout_given = shards > 1;
    const std::string message = error_of(
        [&] { pipeline::build_database(options, nullptr, pipeline::make_gpu_build_executor); });
    CHECK(message.find("--table-capacity") != std::string::npos);
  }
}

// Issue 12: a database spread over shards (several on one GPU exercise the
// multi-GPU split) and built in partitions is the CPU's plain database.
// Issue 28: the shards divide the sketching (each batch sketched once, its
// pairs exchanged by local copies between the shards of one GPU); small
// batches make many rounds.
TEST_CASE("GPU builds in shards and partitions are the plain CPU database, byte for byte") {
  const fs::path data = METAWARP_TEST_DATA_DIR;
  const fs::path dir = scratch_dir("parts");
  for (int set = 0; set < 3; ++set) {
    pipeline::BuildOptions options;
    options.quiet = true;
    options.threads = 3;
    if (set == 0) {
      options.references = {(data / "genomes").string()};
      options.taxonomy_dir = data / "taxonomy";
      options.seqid2taxid_files = {(data / "seqid2taxid.map").string()};
      options.params.sketch = scaled_sketch;
    } else {
      options.references = {write_random_references(dir, 13).string()};
      options.allow_no_taxonomy = true;
      // Set 2: minimizers with W at its largest, the targets cut into pieces.
      options.params.sketch =
          set == 1 ? sketch::SketchParams{12, 40, 8} : minimizers(16, 60, 16, 128);
      options.params.max_locations_per_feature = 4;
    }
    pipeline::run_build(options, dir / "cpu.mwdb");
    const std::string cpu = read_file(dir / "cpu.mwdb");
    for (unsigned shards : {1u, 2u, 3u, 4u}) {
      for (unsigned partitions : {1u, 2u, 3u}) {
        CAPTURE(set, shards, partitions);
        pipeline::BuildOptions o = options;
        o.gpu.layout = pipeline::ShardLayout{{0}, shards};
        o.gpu.layout_given = true;
        o.partitions = partitions;
        o.gpu.batch_bases = partitions == 2 ? 4096 : partitions == 3 ? 1000 : std::uint64_t(64) << 20;
        const pipeline::BuildSummary summary = pipeline::run_build(
            o, dir / "gpu.mwdb", pipeline::make_gpu_build_executor, pipeline::gpu_partitions_needed);
        CHECK(summary.partitions == partitions);
        if (shards > 1) CHECK(summary.executor_stages.find("exchange local-copy") != std::string::npos);
        REQUIRE(read_file(dir / "gpu.mwdb") == cpu);
      }
    }
  }
}

TEST_CASE("GPU build under a small --max-gpu-memory partitions itself and gives the same file") {
  const fs::path data = METAWARP_TEST_DATA_DIR;
  const fs::path dir = scratch_dir("auto_parts");
  pipeline::BuildOptions options;
  options.quiet = true;
  options.references = {(data / "genomes").string()};
  options.allow_no_taxonomy = true;
  options.params.sketch = window_sketch;
  options.gpu.batch_bases = 1 << 20;
  pipeline::run_build(options, dir / "cpu.mwdb");
  // The whole plan of test_data needs more than this; a part of it fits.
  options.gpu.table_capacity = std::uint64_t(40) << 20;
  const std::uint64_t whole = std::uint64_t(1) << 30;  // the plan of 40 M pairs needs ~1.6 GiB
  options.gpu.memory_limit = whole / 2;
  const pipeline::BuildSummary summary = pipeline::run_build(
      options, dir / "gpu.mwdb", pipeline::make_gpu_build_executor, pipeline::gpu_partitions_needed);
  CHECK(summary.partitions > 1);
  CHECK(read_file(dir / "gpu.mwdb") == read_file(dir / "cpu.mwdb"));
}

namespace {

int gpu_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) return 0;
  return count;
}

// Builds with the CPU and with the GPU executor over `layout` (both tables,
// each batch size: one round to hundreds, one and two partitions) and
// requires identical files; returns the last GPU build's stage line.
std::string require_identical_sharded_builds(
    pipeline::BuildOptions options, const pipeline::ShardLayout& layout, const fs::path& dir,
    std::initializer_list<std::uint64_t> batches = {std::uint64_t(64) << 20, 4096, 1000}) {
  options.quiet = true;
  options.threads = 3;
  pipeline::run_build(options, dir / "cpu.mwdb");
  const std::string cpu = read_file(dir / "cpu.mwdb");
  std::string stages;
  for (auto table : {pipeline::BuildTable::multi_value, pipeline::BuildTable::bucket_list}) {
    for (std::uint64_t batch : batches) {
      for (unsigned partitions : {1u, 2u}) {
        pipeline::BuildOptions o = options;
        o.gpu.layout = layout;
        o.gpu.layout_given = true;
        o.gpu.table = table;
        o.gpu.batch_bases = batch;
        o.partitions = partitions;
        CAPTURE(int(table), o.gpu.batch_bases, partitions);
        const pipeline::BuildSummary summary = pipeline::run_build(
            o, dir / "gpu.mwdb", pipeline::make_gpu_build_executor, pipeline::gpu_partitions_needed);
        REQUIRE(read_file(dir / "gpu.mwdb") == cpu);
        stages = summary.executor_stages;
      }
    }
  }
  return stages;
}

pipeline::BuildOptions random_minimizer_build(const fs::path& dir) {
  pipeline::BuildOptions options;
  options.references = {write_random_references(dir, 31).string()};
  options.allow_no_taxonomy = true;
  options.params.sketch = minimizers(16, 60, 16, 128);
  options.params.max_locations_per_feature = 4;
  return options;
}

}  // namespace

// Issue 28: several shards on one GPU exchange their pairs by device copies;
// batches of every size, both tables: the CPU's database.
TEST_CASE("GPU build in 3 shards on one GPU, each batch sketched once, is the CPU database") {
  const fs::path dir = scratch_dir("one_gpu_shards");
  const std::string stages =
      require_identical_sharded_builds(random_minimizer_build(dir), pipeline::ShardLayout{{0}, 3}, dir);
  CHECK(stages.find("exchange local-copy") != std::string::npos);
}

// Issue 28: on two GPUs each batch is sketched by one of them and the pairs
// travel by peer copies (kernels/sharded_build_table.hpp: not NCCL), with one
// or two shards per GPU.
TEST_CASE("GPU build over 2 GPUs, batches dealt between them, is the CPU database") {
  if (gpu_count() < 2) {
    WARN("only " << gpu_count() << " GPU visible: the 2-GPU build is not checked here");
    return;
  }
  const fs::path data = METAWARP_TEST_DATA_DIR;
  const fs::path dir = scratch_dir("two_gpus");
  pipeline::BuildOptions test_data;
  test_data.references = {(data / "genomes").string()};
  test_data.taxonomy_dir = data / "taxonomy";
  test_data.seqid2taxid_files = {(data / "seqid2taxid.map").string()};
  for (unsigned per_gpu : {1u, 2u}) {
    CAPTURE(per_gpu);
    const pipeline::ShardLayout layout{{0, 1}, per_gpu};
    const std::string exchange = "exchange local-copy";  // peer copies between the GPUs
    CHECK(require_identical_sharded_builds(test_data, layout, dir, {std::uint64_t(64) << 20})
              .find(exchange) != std::string::npos);
    CHECK(require_identical_sharded_builds(random_minimizer_build(dir), layout, dir).find(exchange) !=
          std::string::npos);
  }
}

namespace {

// The inverse of c modulo 2^64 (c odd): Newton's iteration doubles the
// correct low bits each step.
std::uint64_t inverse_mod_2_64(std::uint64_t c) {
  std::uint64_t x = c;  // right in the low 3 bits
  for (int i = 0; i < 5; ++i) x *= 2 - c * x;
  return x;
}

// The 32-mer (bases, first base the most significant, as the k-mer roller
// packs them) whose canonical form hashes to `feature` (hash_kmer: the high
// half of fmix64), by running fmix64 backwards from feature << 32 | low for
// the first low half that gives a canonical k-mer.
std::string kmer_of_feature(sketch::feature_t feature) {
  const auto unshift = [](std::uint64_t h) { return h ^ (h >> 33); };  // its own inverse
  for (std::uint64_t low = 0;; ++low) {
    std::uint64_t x = (std::uint64_t(feature) << 32) | low;
    x = unshift(x) * inverse_mod_2_64(hash::fmix64_multiplier2);
    x = unshift(x) * inverse_mod_2_64(hash::fmix64_multiplier1);
    x = unshift(x);
    if (sketch::canonical_kmer(x, 32) != x) continue;
    REQUIRE(sketch::hash_kmer(x) == feature);
    std::string bases;
    for (int i = 31; i >= 0; --i) bases += "ACGT"[(x >> (2 * i)) & 3];
    return bases;
  }
}

}  // namespace

// Features equal to the tables' sentinels (the empty and the tombstone key)
// cannot go into a GPU table: the GPU builds keep them in a side list and
// merge it back, on one GPU, in shards (the owner of the top of the feature
// space is the last shard, so on two GPUs the first GPU's spill travels) and
// in partitions. 40-base windows of 32-mers keep all their 9 k-mers.
TEST_CASE("GPU builds keep the features equal to a table sentinel, as the CPU does") {
  using Sentinels = tables::KeySentinels<sketch::feature_t>;
  const fs::path dir = scratch_dir("sentinels");
  const std::string empty = kmer_of_feature(Sentinels::empty);
  const std::string tombstone = kmer_of_feature(Sentinels::tombstone);
  std::mt19937_64 rng(5);
  const auto random_bases = [&](std::size_t n) {
    std::string s(n, 'A');
    for (auto& c : s) c = "ACGT"[rng() % 4];
    return s;
  };
  pipeline::BuildOptions options;
  options.references = {(dir / "sentinels.fa").string()};
  {
    std::ofstream out(options.references[0]);
    out << ">alone\n" << empty << "\n";
    for (int t = 0; t < 40; ++t)  // both keys in several windows of many targets
      out << ">t" << t << "\n"
          << random_bases(37 * t) << empty << random_bases(500) << tombstone
          << random_bases(t % 7) << "\n";
  }
  options.allow_no_taxonomy = true;
  options.params.sketch = sketch::SketchParams{32, 40, 16, sketch::Sampling::window, 0};
  options.quiet = true;
  pipeline::run_build(options, dir / "cpu.mwdb");
  const db::Database cpu = db::load(dir / "cpu.mwdb");
  CHECK(cpu.index.find(Sentinels::empty).size() == 41);
  CHECK(cpu.index.find(Sentinels::tombstone).size() == 40);
  require_identical_builds(options, dir, {std::uint64_t(64) << 20, 2000});
  require_identical_sharded_builds(options, pipeline::ShardLayout{{0}, 3}, dir, {2000});
  if (gpu_count() >= 2)
    require_identical_sharded_builds(options, pipeline::ShardLayout{{0, 1}, 1}, dir, {2000});
}

namespace {

// `bases` of random ACGT in records of a million: with minhash windows, more
// than a million features, each section of the index several checksum chunks
// (1 MiB) long in the file.
fs::path write_large_random_references(const fs::path& dir, std::uint64_t bases) {
  std::mt19937_64 rng(bases);
  const fs::path path = dir / "large.fa";
  std::ofstream out(path);
  std::string line(80, 'A');
  for (std::uint64_t done = 0; done < bases;) {
    out << ">large" << done / 1000000 << "\n";
    for (std::uint64_t end = std::min(bases, done + 1000000); done < end; done += line.size()) {
      for (auto& c : line) c = "ACGT"[rng() % 4];
      out << line << "\n";
    }
  }
  return path;
}

}  // namespace

// Issue 28: with one partition the index is written from the GPU, each
// writer thread copying its pieces down through its own pinned staging (one
// GPU, or two shards on one GPU, their ranges met inside the pieces the
// writer asks for); staging of a few KiB takes many copies per piece. The
// file is the CPU build's, and the host path (the index downloaded whole by
// the same copies, then saved) gives it too.
TEST_CASE("GPU build writes its index from the GPU: the CPU's file, whatever the staging") {
  const fs::path dir = scratch_dir("device_write");
  pipeline::BuildOptions options;
  options.quiet = true;
  options.threads = 3;
  options.references = {write_large_random_references(dir, 9000000).string()};
  options.allow_no_taxonomy = true;
  options.params.sketch = window_sketch;
  const pipeline::BuildSummary cpu_summary = pipeline::run_build(options, dir / "cpu.mwdb");
  const std::string cpu = read_file(dir / "cpu.mwdb");
  // Every index section several checksum chunks long: features 4 bytes,
  // counts 1 and locations 4 bytes each.
  REQUIRE(cpu_summary.features > (std::uint64_t(1) << 20) + 1000);
  REQUIRE(cpu_summary.locations * 4 > std::uint64_t(3) << 20);
  for (unsigned shards : {1u, 2u}) {
    for (std::size_t staging : {std::size_t(0), std::size_t(4096), std::size_t(1000)}) {
      CAPTURE(shards, staging);
      pipeline::BuildOptions o = options;
      o.gpu.layout = pipeline::ShardLayout{{0}, shards};
      o.gpu.layout_given = shards > 1;
      o.gpu.staging_bytes = staging;
      const pipeline::BuildSummary summary =
          pipeline::run_build(o, dir / "gpu.mwdb", pipeline::make_gpu_build_executor);
      CHECK(summary.partitions == 1);
      CHECK(summary.features == cpu_summary.features);
      REQUIRE(read_file(dir / "gpu.mwdb") == cpu);
      db::save(pipeline::build_database(o, nullptr, pipeline::make_gpu_build_executor),
               dir / "host.mwdb");
      REQUIRE(read_file(dir / "host.mwdb") == cpu);
    }
  }
}
