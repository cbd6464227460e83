// What a build reads and what it refuses: a database without a taxonomy,
// without a target with a taxon or without any sequence is an error unless
// asked for, the files are read in
// path order and each once, and the problems worth a warning are named.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

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

std::string error_of(const pipeline::BuildOptions& options) {
  try {
    pipeline::build_database(options);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

std::string file_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A small taxonomy: root 1 > genus 10 > species 100, 200.
void write_taxonomy(const fs::path& dir, const std::string& extra_nodes = "") {
  fs::create_directories(dir);
  write_text(dir / "nodes.dmp", test::nodes_line(1, 1, "no rank") + test::nodes_line(10, 1, "genus") +
                                    test::nodes_line(100, 10, "species") +
                                    test::nodes_line(200, 10, "species") + extra_nodes);
  write_text(dir / "names.dmp", test::names_line(1, "root", "scientific name") +
                                    test::names_line(10, "Genus", "scientific name") +
                                    test::names_line(100, "Genus one", "scientific name") +
                                    test::names_line(200, "Genus two", "scientific name"));
}

std::string random_bases(std::size_t n, unsigned seed) {
  std::string s(n, 'A');
  for (auto& c : s) {
    seed = seed * 1103515245u + 12345u;
    c = "ACGT"[(seed >> 16) & 3];
  }
  return s;
}

pipeline::BuildOptions options_for(const TempDir& dir) {
  pipeline::BuildOptions o = test::quiet_build_options(2);
  o.taxonomy_dir = dir / "taxonomy";
  return o;
}

}  // namespace

TEST_CASE("build: no taxonomy is an error saying what to add, unless asked for") {
  TempDir dir;
  write_text(dir / "a.fa", ">a taxid|100\n" + random_bases(500, 1) + "\n");
  pipeline::BuildOptions o;
  o.references = {(dir / "a.fa").string()};
  o.quiet = true;
  const std::string message = error_of(o);
  CHECK(message.find("no taxonomy") != std::string::npos);
  CHECK(message.find("--taxonomy") != std::string::npos);
  CHECK(message.find("--no-taxonomy") != std::string::npos);
  o.allow_no_taxonomy = true;
  CHECK(pipeline::build_database(o).targets.size() == 1);
}

TEST_CASE("build: an empty taxonomy (empty nodes.dmp) is an error") {
  TempDir dir;
  fs::create_directories(dir / "taxonomy");
  write_text(dir / "taxonomy" / "nodes.dmp", "");
  write_text(dir / "taxonomy" / "names.dmp", "");
  write_text(dir / "a.fa", ">a\n" + random_bases(500, 1) + "\n");
  pipeline::BuildOptions o = options_for(dir);
  o.references = {(dir / "a.fa").string()};
  const std::string message = error_of(o);
  CHECK(message.find("holds no taxa") != std::string::npos);
  CHECK(message.find((dir / "taxonomy").string()) != std::string::npos);
}

TEST_CASE("build: references without any sequence are an error, unless asked for") {
  TempDir dir;
  write_taxonomy(dir / "taxonomy");
  write_text(dir / "empty.fa", "");
  pipeline::BuildOptions o = options_for(dir);
  o.references = {(dir / "empty.fa").string()};
  const std::string message = error_of(o);
  CHECK(message.find("no sequence") != std::string::npos);
  CHECK(message.find("--allow-empty") != std::string::npos);
  o.allow_empty = true;
  const db::Database db = pipeline::build_database(o);
  CHECK(db.targets.empty());
  CHECK(db.index.feature_count() == 0);
}

TEST_CASE("build: a taxonomy but no target with a taxon is an error, unless asked for") {
  TempDir dir;
  write_taxonomy(dir / "taxonomy");
  write_text(dir / "a.fa", ">a\n" + random_bases(500, 1) + "\n>b taxid|999\n" +
                               random_bases(500, 2) + "\n");
  pipeline::BuildOptions o = options_for(dir);
  o.references = {(dir / "a.fa").string()};
  const std::string message = error_of(o);
  CHECK(message.find("none of the 2 targets has a taxon") != std::string::npos);
  CHECK(message.find("'a'") != std::string::npos);
  CHECK(message.find("--seqid2taxid") != std::string::npos);
  CHECK(message.find("--allow-no-taxa") != std::string::npos);
  o.allow_no_taxa = true;
  CHECK(pipeline::build_database(o).targets.size() == 2);

  // One target with a taxon is a database (the others are a warning).
  o.allow_no_taxa = false;
  write_text(dir / "a.fa", ">a taxid|100\n" + random_bases(500, 1) + "\n>b\n" +
                               random_bases(500, 2) + "\n");
  CHECK(pipeline::build_database(o).targets.size() == 2);
  // Without a taxonomy on purpose, no taxon is what was asked for.
  o.taxonomy_dir.clear();
  o.allow_no_taxonomy = true;
  write_text(dir / "a.fa", ">a\n" + random_bases(500, 1) + "\n");
  CHECK(pipeline::build_database(o).targets.size() == 1);
}

TEST_CASE("build: the database does not depend on the order of the files given") {
  TempDir dir;
  write_taxonomy(dir / "taxonomy");
  write_text(dir / "b.fa", ">b taxid|200\n" + random_bases(3000, 2) + "\n");
  write_text(dir / "a.fa", ">a taxid|100\n" + random_bases(3000, 1) + "\n");
  write_text(dir / "c.fa", ">c taxid|100\n" + random_bases(3000, 3) + "\n");
  pipeline::BuildOptions o = options_for(dir);
  o.references = {(dir / "b.fa").string(), (dir / "c.fa").string(), (dir / "a.fa").string()};
  db::save(pipeline::build_database(o), dir / "one.mwdb");
  o.references = {(dir / "c.fa").string(), (dir / "a.fa").string(), (dir / "b.fa").string()};
  db::save(pipeline::build_database(o), dir / "two.mwdb");
  CHECK(file_bytes(dir / "one.mwdb") == file_bytes(dir / "two.mwdb"));
  const db::Database db = db::load(dir / "one.mwdb");
  REQUIRE(db.targets.size() == 3);
  CHECK(db.targets[0].name == "a");  // path order
  CHECK(db.targets[2].name == "c");
}

TEST_CASE("build: a file named twice (also through a link) is read once and named") {
  TempDir dir;
  write_taxonomy(dir / "taxonomy");
  write_text(dir / "a.fa", ">a taxid|100\n" + random_bases(3000, 1) + "\n");
  fs::create_symlink(dir / "a.fa", dir / "link.fa");
  pipeline::BuildOptions o = options_for(dir);
  o.references = {(dir / "a.fa").string(), (dir / "a.fa").string(), (dir / "link.fa").string()};
  pipeline::BuildSummary summary;
  const db::Database db = pipeline::build_database(o, &summary);
  CHECK(db.targets.size() == 1);
  CHECK(summary.repeated_files.size() == 2);
  CHECK(summary.duplicate_target_names.empty());
}

TEST_CASE("build: targets without a taxon, duplicate names and unknown ranks are named") {
  TempDir dir;
  write_taxonomy(dir / "taxonomy", test::nodes_line(300, 10, "brand-new-rank"));
  write_text(dir / "refs.fa", ">known taxid|100\n" + random_bases(600, 1) +
                                  "\n>missing taxid|999\n" + random_bases(600, 2) +
                                  "\n>twice taxid|200\n" + random_bases(600, 3) +
                                  "\n>twice taxid|200\n" + random_bases(600, 4) + "\n>bare\n" +
                                  random_bases(600, 5) + "\n");
  pipeline::BuildOptions o = options_for(dir);
  o.references = {(dir / "refs.fa").string()};
  pipeline::BuildSummary summary;
  const db::Database db = pipeline::build_database(o, &summary);
  CHECK(db.targets.size() == 5);
  CHECK(summary.unmapped_targets == 2);
  CHECK(summary.unmapped_target_names == std::vector<std::string>{"missing", "bare"});
  CHECK(summary.duplicate_target_names == std::vector<std::string>{"twice"});
  CHECK(summary.unknown_ranks == std::vector<std::string>{"brand-new-rank"});
  CHECK(summary.targets == 5);
  CHECK(summary.features == db.index.feature_count());
}
