// A database built in parts, by feature range, is the database built whole,
// byte for byte: CPU shards (one pass, several executors) and partitions
// (one pass each, written as they complete), on test_data and on random
// references; a partition over its memory limit stops with what to change.
#include <sys/stat.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "catch.hpp"
#include "error_of.hpp"
#include "db/database.hpp"
#include "db/file_writer.hpp"
#include "pipeline/build/build.hpp"
#include "pipeline/build/build_inputs.hpp"
#include "../query/query_test_data.hpp"
#include "scratch_dir.hpp"

namespace fs = std::filesystem;
using namespace metawarp;

namespace {

std::vector<char> bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

fs::path write_random_references(const fs::path& dir) {
  std::mt19937_64 rng(99);
  const fs::path path = dir / "random.fa";
  std::ofstream out(path);
  const std::size_t lengths[] = {120000, 15, 7000, 127, 60000, 3};
  for (std::size_t r = 0; r < std::size(lengths); ++r) {
    std::string seq(lengths[r], 'A');
    for (auto& c : seq) c = "ACGTacgtNACGT"[rng() % 13];
    out << ">rand" << r << "\n" << seq << "\n";
  }
  return path;
}

// Every way of cutting the build gives the file of the plain build.
void require_same_files(pipeline::BuildOptions options, const fs::path& dir) {
  const fs::path plain = dir / "plain.mwdb", parts = dir / "parts.mwdb";
  const pipeline::BuildSummary whole = pipeline::run_build(options, plain);
  CHECK(whole.partitions == 1);
  const std::vector<char> expected = bytes_of(plain);
  REQUIRE(expected.size() > 304);
  for (unsigned partitions : {1u, 2u, 3u}) {
    for (unsigned shards : {1u, 2u, 3u}) {
      CAPTURE(partitions, shards);
      pipeline::BuildOptions o = options;
      o.partitions = partitions;
      o.cpu_shards = shards;
      const pipeline::BuildSummary summary = pipeline::run_build(o, parts);
      CHECK(summary.partitions == partitions);
      CHECK(summary.features == whole.features);
      CHECK(summary.locations == whole.locations);
      CHECK(summary.targets == whole.targets);
      REQUIRE(bytes_of(parts) == expected);
      // In memory too (build_database concatenates the parts).
      CHECK(pipeline::build_database(o).index == db::load(plain).index);
    }
  }
  // Nothing left beside the two databases (spill files and temporaries gone).
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) files += entry.path().extension() != ".fa";
  CHECK(files == 2);
}

using test::error_of;

}  // namespace

TEST_CASE("test_data built in partitions and CPU shards is the plain database, byte for byte") {
  test::ScratchDir dir("build_parts_test_data");
  require_same_files(test::test_build_options(), dir.path());
}

TEST_CASE("random references built in parts are the plain database, with the cap exercised") {
  test::ScratchDir dir("build_parts_random");
  pipeline::BuildOptions o = test::quiet_build_options(3);
  o.references = {write_random_references(dir.path()).string()};
  o.allow_no_taxonomy = true;
  for (bool remove : {false, true}) {
    o.params.sketch = {8, 30, 6};  // short k-mers: features shared by many windows
    o.params.max_locations_per_feature = 5;
    o.params.remove_overpopulated_features = remove;
    CAPTURE(remove);
    require_same_files(o, dir.path());
  }
}

TEST_CASE("--partition-size chooses the partitions, and a partition over it says what to change") {
  test::ScratchDir dir("build_parts_limit");
  pipeline::BuildOptions o = test::test_build_options();
  const fs::path plain = dir.path() / "plain.mwdb", parts = dir.path() / "parts.mwdb";
  const pipeline::BuildSummary whole = pipeline::run_build(o, plain);

  // A limit of about a third of the pairs: several partitions, the same file.
  o.partition_bytes = whole.locations * pipeline::host_bytes_per_pair / 3;
  const pipeline::BuildSummary summary = pipeline::run_build(o, parts);
  CHECK(summary.partitions >= 3);
  CHECK(bytes_of(parts) == bytes_of(plain));

  // The same limit with one partition asked for: it cannot hold them all.
  o.partitions = 1;
  fs::remove(parts);
  std::string message = error_of([&] { pipeline::run_build(o, parts); });
  CHECK(message.find("--partition-size") != std::string::npos);
  CHECK(message.find("--partitions 2") != std::string::npos);
  CHECK_FALSE(fs::exists(parts));
  o.partitions = 2;  // two halves are still too large for a third
  message = error_of([&] { pipeline::run_build(o, parts); });
  CHECK(message.find("partition 1/2") != std::string::npos);
  CHECK(message.find("--partitions 4") != std::string::npos);
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir.path())) files += entry.is_regular_file();
  CHECK(files == 1);  // the plain database alone: no spill files, no temporary
}

TEST_CASE("a build in partitions refuses standard input, which it cannot read twice") {
  pipeline::BuildOptions o;
  o.references = {"-"};
  o.allow_no_taxonomy = true;
  o.quiet = true;
  o.partitions = 2;
  const std::string message = error_of([&] { pipeline::build_database(o); });
  CHECK(message.find("standard input") != std::string::npos);
}

TEST_CASE("a build in partitions refuses a pipe, FIFO or device by name, before opening it") {
  test::ScratchDir dir("rereadable");
  const fs::path fifo = dir.path() / "refs.fifo", file = dir.path() / "refs.fa";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::ofstream(file) << ">a\nACGT\n";
  // Nothing opens the FIFO (no writer): opening it would not return.
  const std::vector<std::string> once{file.string(), fifo.string()};
  CHECK_NOTHROW(pipeline::check_rereadable(once, 1));
  const std::string message = error_of([&] { pipeline::check_rereadable(once, 2); });
  CHECK(message.rfind('\'', 0) == 0);
  CHECK(message.substr(1) == fifo.string() + "' is a FIFO (named pipe), which can be read only "
                                             "once, and a build in 2 partitions reads the "
                                             "references once per partition: give regular "
                                             "files, or build in one partition");
  CHECK(error_of([&] { pipeline::check_rereadable({"/dev/null"}, 3); })
            .rfind("'/dev/null' is a character device", 0) == 0);
  // Regular files, and a file that is not there (its read reports it), pass.
  CHECK_NOTHROW(pipeline::check_rereadable({file.string(), (dir.path() / "gone.fa").string()}, 2));
}

namespace {

// How the driver took the index of a part held "elsewhere" (the GPU
// executors leave theirs in device memory: pipeline/gpu/device_index.hpp).
struct ResidentUse {
  int sources = 0;    // written from where it is, piece by piece
  int downloads = 0;  // taken to the host whole
  std::uint64_t pieces = 0;
  // Every part after the first is the first again, out of order: the
  // writer's append of the second one fails.
  bool repeat_first = false;
  std::optional<db::FeatureIndex> first;
};

db::FeatureIndex copy_of(const db::FeatureIndex& index) {
  return db::FeatureIndex(index.features(), index.offsets(), index.locations());
}

// The CPU executor's index behind BuiltIndex::Resident, counting its use.
class CountingResident final : public pipeline::BuiltIndex::Resident {
 public:
  CountingResident(db::FeatureIndex index, ResidentUse& use)
      : index_(std::move(index)), use_(use) {}
  std::uint64_t feature_count() const override { return index_.feature_count(); }
  std::uint64_t location_count() const override { return index_.location_count(); }
  db::IndexSource source() const override {
    ++use_.sources;
    db::IndexSource source = db::index_source(index_);
    const auto offsets = source.offsets;
    source.offsets = [this, offsets](unsigned worker, std::uint64_t first, std::size_t n) {
      pieces_.fetch_add(1);
      return offsets(worker, first, n);
    };
    return source;
  }
  db::FeatureIndex download() const override {
    ++use_.downloads;
    return copy_of(index_);
  }
  ~CountingResident() override { use_.pieces += pieces_.load(); }

 private:
  db::FeatureIndex index_;
  ResidentUse& use_;
  mutable std::atomic<std::uint64_t> pieces_{0};
};

class ResidentExecutor final : public pipeline::BuildExecutor {
 public:
  ResidentExecutor(std::unique_ptr<pipeline::BuildExecutor> cpu, ResidentUse& use)
      : cpu_(std::move(cpu)), use_(use) {}
  void add(pipeline::TargetSequence target) override { cpu_->add(std::move(target)); }
  void flush() override { cpu_->flush(); }
  pipeline::BuiltIndex finalize() override {
    db::FeatureIndex index = cpu_->finalize().to_host();
    if (use_.repeat_first && use_.first) index = copy_of(*use_.first);
    else if (use_.repeat_first) use_.first = copy_of(index);
    return pipeline::BuiltIndex(std::make_unique<CountingResident>(std::move(index), use_));
  }

 private:
  std::unique_ptr<pipeline::BuildExecutor> cpu_;
  ResidentUse& use_;
};

}  // namespace

// Issue 28: an index the executor leaves where it is (the GPU's) is written
// from there in one partition, never downloaded whole; the host keeps
// partitions and build_database's database, so those download it (the
// partitions then appended by a thread of their own while the next part is
// built). The file is the plain build's either way.
pipeline::MakeBuildExecutor resident_executor(ResidentUse& use) {
  return [&use](const pipeline::BuildOptions& options, const pipeline::BuildInputs& inputs) {
    return std::make_unique<ResidentExecutor>(pipeline::make_cpu_build_executor(options, inputs),
                                              use);
  };
}

TEST_CASE("a part left on its executor is written from there, or downloaded where the host "
          "keeps it") {
  test::ScratchDir dir("build_resident");
  pipeline::BuildOptions o = test::test_build_options();
  o.params.max_locations_per_feature = 3;
  const fs::path plain = dir / "plain.mwdb", resident = dir / "resident.mwdb";
  pipeline::run_build(o, plain);
  ResidentUse use;
  const pipeline::MakeBuildExecutor make = resident_executor(use);
  pipeline::run_build(o, resident, make);
  CHECK(use.sources == 1);
  CHECK(use.downloads == 0);
  CHECK(use.pieces > 0);
  CHECK(bytes_of(resident) == bytes_of(plain));

  use = {};
  o.partitions = 3;
  pipeline::run_build(o, resident, make);
  CHECK(use.sources == 0);
  CHECK(use.downloads == 3);
  CHECK(bytes_of(resident) == bytes_of(plain));

  use = {};
  o.partitions = 1;
  const db::Database db = pipeline::build_database(o, nullptr, make);
  CHECK(use.downloads == 1);
  db::save(db, dir / "kept.mwdb");
  CHECK(bytes_of(dir / "kept.mwdb") == bytes_of(plain));
}

// Issue 28: a part appended while the next is built fails the build with
// the append's error; the database that was at the path stays, and neither
// a temporary nor a spill file is left.
TEST_CASE("a partitioned build whose part fails to append in the background keeps the old file") {
  test::ScratchDir dir("build_resident_failure");
  pipeline::BuildOptions o = test::test_build_options();
  const fs::path path = dir / "db.mwdb";
  pipeline::run_build(o, path);
  const std::vector<char> before = bytes_of(path);
  ResidentUse use;
  use.repeat_first = true;
  o.partitions = 3;
  const std::string message =
      test::error_of([&] { pipeline::run_build(o, path, resident_executor(use)); });
  CHECK(test::contains(message, "database part out of order"));
  CHECK(bytes_of(path) == before);
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir.path())) files += entry.is_regular_file();
  CHECK(files == 1);
}
