#pragma once
// What the query and build tests share: test_data's folder, its database
// (built once, in-process, with the build pipeline), the options of a test
// build, and whole-file reads and writes.
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "pipeline/build/build.hpp"

namespace metawarp::test {

inline const std::filesystem::path query_data_dir = METAWARP_TEST_DATA_DIR;

// A build that says nothing, on `threads` threads; no inputs yet.
inline pipeline::BuildOptions quiet_build_options(unsigned threads) {
  pipeline::BuildOptions o;
  o.quiet = true;
  o.threads = threads;
  return o;
}

// test_data's genomes, taxonomy and map, the default parameters.
inline pipeline::BuildOptions test_build_options() {
  pipeline::BuildOptions o = quiet_build_options(2);
  o.references = {(query_data_dir / "genomes").string()};
  o.taxonomy_dir = query_data_dir / "taxonomy";
  o.seqid2taxid_files = {(query_data_dir / "seqid2taxid.map").string()};
  return o;
}

// test_build_options with random parameters, drawn from rng in this order:
// k in [12, 32), window k + [16, 216), sketch size [2, 32), cap [1, max_cap].
inline pipeline::BuildOptions random_build_options(std::mt19937_64& rng, std::uint32_t max_cap) {
  pipeline::BuildOptions b = test_build_options();
  b.params.sketch.k = 12 + std::uint32_t(rng() % 20);
  b.params.sketch.window = b.params.sketch.k + 16 + std::uint32_t(rng() % 200);
  b.params.sketch.sketch_size = 2 + std::uint32_t(rng() % 30);
  b.params.max_locations_per_feature = 1 + std::uint32_t(rng() % max_cap);
  return b;
}

// "k .. w .. s .. cap ..": which random parameters a failing round had.
inline std::string parameters_of(const pipeline::BuildOptions& b) {
  return "k " + std::to_string(b.params.sketch.k) + " w " + std::to_string(b.params.sketch.window) +
         " s " + std::to_string(b.params.sketch.sketch_size) + " cap " +
         std::to_string(b.params.max_locations_per_feature);
}

inline const db::Database& test_database() {
  static const db::Database db = pipeline::build_database(test_build_options());
  return db;
}

inline std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Sequences of a FASTQ file (4 lines per record, as test_data writes them).
inline std::vector<std::string> fastq_sequences(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::vector<std::string> out;
  std::string line;
  for (std::size_t i = 0; std::getline(in, line); ++i)
    if (i % 4 == 1) out.push_back(line);
  return out;
}

}  // namespace metawarp::test
