// The build's executor seam: the driver hands every target to whatever
// executor it is given, in target-id order, and takes the index it returns.
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "catch.hpp"
#include "db/database.hpp"
#include "pipeline/build/build.hpp"
#include "../query/query_test_data.hpp"
#include "temp_files.hpp"

namespace fs = std::filesystem;
using namespace metawarp;
using test::TempDir;
using test::write_text;

namespace {

// Records what the driver hands it; its index is the CPU finalize of one
// entry per window (window 0's "feature" is the target id).
class RecordingExecutor final : public pipeline::BuildExecutor {
 public:
  explicit RecordingExecutor(std::vector<pipeline::TargetSequence>& seen) : seen_(seen) {}
  void add(pipeline::TargetSequence target) override { seen_.push_back(std::move(target)); }
  void flush() override { flushed_ = true; }
  pipeline::BuiltIndex finalize() override {
    if (!flushed_) throw std::logic_error("finalize before flush");
    std::vector<db::Entry> entries;
    for (const auto& t : seen_)
      for (std::uint32_t w = 0; w < t.windows; ++w)
        entries.push_back(db::Entry{t.target + 1000 * w, sketch::Location{t.target, w}});
    db::DatabaseParams params;
    return db::finalize(std::move(entries), params, 1);
  }
  std::string stages() const override { return "recording: nothing to report"; }

 private:
  std::vector<pipeline::TargetSequence>& seen_;
  bool flushed_ = false;
};

pipeline::BuildOptions two_files(const TempDir& dir) {
  write_text(dir / "b.fa", ">b1\n" + std::string(400, 'C') + "\n>b2\n" + std::string(10, 'G') + "\n");
  write_text(dir / "a.fa", ">a1\n" + std::string(300, 'A') + "\n");
  pipeline::BuildOptions o = test::quiet_build_options(3);
  o.references = {(dir / "b.fa").string(), (dir / "a.fa").string()};
  o.allow_no_taxonomy = true;
  return o;
}

}  // namespace

TEST_CASE("build driver: any executor gets the targets in id order and gives the index") {
  TempDir dir;
  const pipeline::BuildOptions o = two_files(dir);
  std::vector<pipeline::TargetSequence> seen;
  pipeline::BuildSummary summary;
  const db::Database db = pipeline::build_database(
      o, &summary, [&](const pipeline::BuildOptions&, const pipeline::BuildInputs& inputs) {
        CHECK(inputs.files.size() == 2);
        return std::make_unique<RecordingExecutor>(seen);
      });
  REQUIRE(seen.size() == 3);
  for (std::size_t i = 0; i < seen.size(); ++i) CHECK(seen[i].target == i);
  CHECK(seen[0].sequence == std::string(300, 'A'));  // a.fa first: path order
  CHECK(seen[1].sequence == std::string(400, 'C'));
  CHECK(seen[2].windows == 0);  // shorter than k
  REQUIRE(db.targets.size() == 3);
  CHECK(db.targets[1].name == "b1");
  CHECK(db.targets[1].windows == seen[1].windows);
  CHECK(db.index.feature_count() == seen[0].windows + seen[1].windows);
  CHECK(summary.executor_stages == "recording: nothing to report");
}

TEST_CASE("build driver: the CPU executor is the default and is deterministic over threads") {
  TempDir dir;
  pipeline::BuildOptions o = two_files(dir);
  o.threads = 1;
  const db::Database one = pipeline::build_database(o);
  o.threads = 4;
  const db::Database four = pipeline::build_database(o, nullptr, pipeline::make_cpu_build_executor);
  CHECK(one.index == four.index);
  CHECK(one.index.feature_count() > 0);
}

TEST_CASE("build driver: an executor that cannot run stops the build with its message") {
  TempDir dir;
  const pipeline::BuildOptions o = two_files(dir);
  CHECK_THROWS_WITH(
      pipeline::build_database(o, nullptr,
                               [](const pipeline::BuildOptions&, const pipeline::BuildInputs&)
                                   -> std::unique_ptr<pipeline::BuildExecutor> {
                                 throw std::runtime_error("no such device; use --device cpu");
                               }),
      "no such device; use --device cpu");
}
