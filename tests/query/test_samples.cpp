// Many samples in one run (pipeline/query/samples.hpp): each sample's outputs are
// byte-identical to a run for that sample alone; output paths come from
// {sample} templates; every sample's paths are checked before any work; the
// first failing sample ends the run, keeping the samples before it.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "catch.hpp"
#include "scratch_dir.hpp"
#include "query_test_data.hpp"
#include "pipeline/query/samples.hpp"

using namespace metawarp;
namespace fs = std::filesystem;

namespace {

using namespace metawarp::test;  // the database, data folder and file helpers

// The first `records` FASTQ records of `path`.
std::string head_records(const fs::path& path, int records) {
  std::istringstream in(slurp(path));
  std::string text, line;
  for (int i = 0; i < 4 * records && std::getline(in, line); ++i) text += line + "\n";
  return text;
}

const std::string r1 = (query_data_dir / "reads_R1.fq").string();
const std::string r2 = (query_data_dir / "reads_R2.fq").string();

// Every output, as templates.
pipeline::QueryOptions template_options() {
  pipeline::QueryOptions o;
  o.threads = 2;
  o.batch_size = 100;
  o.output = "{sample}.tsv";
  o.kraken_output = "{sample}.kraken";
  o.report = "{sample}.report";
  o.abundance = "{sample}.abundance.tsv";
  return o;
}

pipeline::Sample sample(std::string name, std::vector<std::string> reads) {
  return {std::move(name), std::move(reads), "test"};
}

// Whether `text` holds `part`; the check's message shows both.
bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const char* const suffixes[] = {".tsv", ".kraken", ".report", ".abundance.tsv"};

}  // namespace

TEST_CASE("each sample's outputs equal a run for that sample alone", "[samples]") {
  test::ScratchDir dir("samples");
  // Three different samples: pairs, single-end mates 1, and a part of them.
  const fs::path part = dir / "part.fq";
  write_file(part, head_records(r1, 37));
  const std::vector<pipeline::Sample> samples = {
      sample("pairs", {r1, r2}), sample("single", {r1}), sample("part.1", {part.string()})};
  fs::create_directory(dir / "many");
  const auto summaries = pipeline::run_samples(test_database(), template_options(), samples,
                                               dir / "many", nullptr);
  REQUIRE(summaries.size() == 3);
  CHECK(summaries[2].reads == 37);

  for (const pipeline::Sample& s : samples) {
    // The same options for one sample, written elsewhere, with other thread
    // and batch settings (which change nothing).
    pipeline::QueryOptions alone = template_options();
    alone.reads = s.reads;
    alone.threads = 1;
    alone.batch_size = 7;
    const fs::path one = dir / ("one_" + s.name);
    fs::create_directory(one);
    alone.output = (one / "out.tsv").string();
    alone.kraken_output = (one / "out.kraken").string();
    alone.report = (one / "out.report").string();
    alone.abundance = (one / "out.abundance.tsv").string();
    pipeline::run_query(test_database(), alone);
    for (const char* suffix : suffixes) {
      INFO(s.name << suffix);
      const std::string many = slurp(dir / "many" / (s.name + suffix));
      CHECK_FALSE(many.empty());
      CHECK(many == slurp(one / (std::string("out") + suffix)));
    }
  }
  // The samples differ, so equal files above are no accident of equal input.
  CHECK(slurp(dir / "many" / "pairs.tsv") != slurp(dir / "many" / "single.tsv"));
}

TEST_CASE("sample output paths: {sample} replaced, relative paths under the folder",
          "[samples]") {
  pipeline::QueryOptions o;
  o.output = "{sample}.tsv";
  o.kraken_output = "";
  o.report = "/abs/{sample}/x_{sample}.report";
  o.abundance = "sub/{sample}.ab";
  const auto got = pipeline::sample_query_options(o, sample("A1", {"a.fq"}), "out");
  CHECK(got.reads == std::vector<std::string>{"a.fq"});
  CHECK(got.output == (fs::path("out") / "A1.tsv").string());
  CHECK(got.kraken_output.empty());
  CHECK(got.report == "/abs/A1/x_A1.report");
  CHECK(got.abundance == (fs::path("out") / "sub" / "A1.ab").string());
  CHECK(pipeline::sample_query_options(o, sample("A1", {"a.fq"}), "").output == "A1.tsv");
}

TEST_CASE("sample names must be safe file names", "[samples]") {
  for (const char* good : {"a", "gut_A", "S-01.lane2", "0", "x_"})
    CHECK(pipeline::sample_name_problem(good).empty());
  for (const char* bad : {"", ".", "..", ".hidden", "-x", "a/b", "a b", "a\tb", "tab\\", "é", "a:b",
                          "{sample}"})
    CHECK_FALSE(pipeline::sample_name_problem(bad).empty());
  CHECK_FALSE(pipeline::sample_name_problem(std::string(101, 'a')).empty());
  CHECK(pipeline::sample_name_problem(std::string(100, 'a')).empty());
}

TEST_CASE("sample checks refuse before any work", "[samples]") {
  test::ScratchDir dir("samples_checks");
  const auto o = template_options();
  auto refused = [&](const std::vector<pipeline::Sample>& samples,
                     const pipeline::QueryOptions& options, const std::string& expected) {
    INFO(expected);
    try {
      pipeline::check_sample_paths(options, samples, dir.path(), query_data_dir / "none.mwdb");
      FAIL("accepted");
    } catch (const std::invalid_argument& e) {
      INFO(e.what());
      CHECK(contains(e.what(), expected));
    } catch (const std::runtime_error& e) {  // the output rule's refusals
      INFO(e.what());
      CHECK(contains(e.what(), expected));
    }
  };
  refused({}, o, "no samples");
  refused({sample("a", {r1}), sample("b", {r1}), sample("a", {r2})}, o,
          "'a' (test) is already the name of sample 'a'");
  refused({sample("Gut", {r1}), sample("gut", {r2})}, o, "differ only in case");
  refused({sample("a/b", {r1})}, o, "not a safe file name");
  refused({sample("a", {})}, o, "needs one reads file");
  auto interleaved = o;
  interleaved.interleaved = true;
  refused({sample("a", {r1, r2})}, interleaved, "--interleaved takes one reads file");

  auto fixed = o;
  fixed.report = "all.report";
  refused({sample("a", {r1})}, fixed, "--report 'all.report': with samples every output path");
  auto to_stdout = o;
  to_stdout.output = "-";
  refused({sample("a", {r1})}, to_stdout, "standard output cannot hold");

  // One sample's output is another sample's reads: refused, and the reads stay.
  const fs::path reads_b = dir / "b.tsv";
  write_file(reads_b, head_records(r1, 3));
  refused({sample("a", {r1}), sample("b", {reads_b.string()})}, o,
          "sample 'b' --output");
  CHECK(slurp(reads_b) == head_records(r1, 3));
  // Nothing was written: the folder holds only b.tsv.
  CHECK(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()) == 1);

  // Without samples, {sample} is a mistake.
  pipeline::QueryOptions one;
  one.report = "{sample}.report";
  try {
    pipeline::check_output_templates(one, false);
    FAIL("{sample} accepted without samples");
  } catch (const std::invalid_argument& e) {
    CHECK(contains(e.what(), "needs samples"));
  }
  one.report = "x.report";
  CHECK_NOTHROW(pipeline::check_output_templates(one, false));
}

TEST_CASE("the first failing sample ends the run; earlier samples keep their outputs",
          "[samples]") {
  test::ScratchDir dir("samples_failure");
  const fs::path bad = dir / "bad.fq";
  write_file(bad, head_records(r1, 5) + "@broken\nACGT\n+\nII\n");  // quality too short
  // An older output of the failing sample and of the sample after it.
  write_file(dir / "b.tsv", "old b\n");
  write_file(dir / "c.tsv", "old c\n");
  const std::vector<pipeline::Sample> samples = {sample("a", {r1}), sample("b", {bad.string()}),
                                                 sample("c", {r1})};
  auto o = template_options();
  o.kraken_output = o.report = o.abundance = "";
  try {
    pipeline::run_samples(test_database(), o, samples, dir.path(), nullptr);
    FAIL("the bad sample was accepted");
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(contains(what, "sample 'b' (2 of 3, test)"));
    CHECK(contains(what, "bad.fq"));
    CHECK(contains(what, "the 1 sample before it ('a') completed"));
    CHECK(contains(what, "the 1 sample after it ('c') not run"));
  }
  // a: complete and kept; b: removed, old file included; c: untouched.
  pipeline::QueryOptions alone = o;
  alone.reads = {r1};
  alone.output = (dir / "alone.tsv").string();
  pipeline::run_query(test_database(), alone);
  CHECK(slurp(dir / "a.tsv") == slurp(dir / "alone.tsv"));
  CHECK_FALSE(fs::exists(dir / "b.tsv"));
  CHECK(slurp(dir / "c.tsv") == "old c\n");
  for (const auto& entry : fs::directory_iterator(dir.path()))
    CHECK(entry.path().filename().string().find(".tmp-") == std::string::npos);
}
