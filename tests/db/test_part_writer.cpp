// A database written in parts (db::PartWriter) is the file save() writes for
// the whole database, byte for byte, however the index is cut; a failure
// leaves nothing behind and keeps the old file.
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "catch.hpp"
#include "db/checksum.hpp"
#include "db/compact_index.hpp"
#include "db/database.hpp"
#include "db/index_concat.hpp"
#include "db/part_writer.hpp"
#include "file_bytes.hpp"
#include "metawarp/index/feature_range.hpp"
#include "sample_database.hpp"
#include "scratch_dir.hpp"

namespace fs = std::filesystem;
using namespace metawarp;
using db::test::read_bytes;

namespace {

// The part of `whole` whose features lie in [begin, end), offsets from 0.
db::FeatureIndex slice(const db::FeatureIndex& whole, std::uint64_t begin, std::uint64_t end) {
  db::IndexArray<db::feature_t> features;
  db::IndexArray<std::uint64_t> offsets;
  db::IndexArray<db::Location> locations;
  for (std::size_t i = 0; i < whole.feature_count(); ++i) {
    if (whole.features()[i] < begin || whole.features()[i] >= end) continue;
    features.push_back(whole.features()[i]);
    offsets.push_back(locations.size());
    for (std::uint64_t l = whole.offsets()[i]; l < whole.offsets()[i + 1]; ++l)
      locations.push_back(whole.locations()[l]);
  }
  offsets.push_back(locations.size());
  return db::FeatureIndex(std::move(features), std::move(offsets), std::move(locations));
}

// A database whose index sections span several checksum chunks (1 MiB).
db::Database large_database(std::uint64_t seed) {
  db::Database db = db::test::make_database(seed);
  std::mt19937_64 rng(seed);
  std::vector<db::Entry> entries;
  for (int i = 0; i < 400000; ++i) {
    const std::uint32_t t = std::uint32_t(rng() % db.targets.size());
    entries.push_back(db::Entry{db::feature_t(rng() % 250000 * 17000),
                                db::Location{t, std::uint32_t(rng() % db.targets[t].windows)}});
  }
  db.index = db::finalize(std::move(entries), db.params, 2);
  return db;
}

// Cut points: random feature values, sorted, with the ends; some parts empty.
std::vector<std::uint64_t> random_cuts(std::mt19937_64& rng, int parts) {
  std::vector<std::uint64_t> cuts{0, index::feature_space_end};
  for (int i = 1; i < parts; ++i) cuts.push_back(rng() % index::feature_space_end);
  if (parts > 2) cuts[2] = cuts[3 % cuts.size()];  // an empty part
  std::sort(cuts.begin(), cuts.end());
  return cuts;
}

// The bytes of the files in `dir` but the databases `a` and `b` (left: the
// spills and the empty temporary of the database being written).
std::uint64_t bytes_beside(const fs::path& dir, const std::string& a, const std::string& b) {
  std::uint64_t bytes = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && name != a && name != b) bytes += entry.file_size();
  }
  return bytes;
}

// The bytes of the features, counts and locations sections of db's file
// (docs/database-format.md, version 4), without their padding.
std::uint64_t index_section_bytes(const db::Database& db) {
  const std::uint64_t features = db.index.feature_count(), locations = db.index.location_count();
  return features * sizeof(db::feature_t) +
         features * db::compact::count_width(db.params.max_locations_per_feature) +
         locations * db::compact::location_width(db::compact::WindowIds(db.targets).total());
}

}  // namespace

TEST_CASE("an index cut by feature ranges concatenates to the whole") {
  const db::Database db = large_database(3);
  std::mt19937_64 rng(11);
  for (int parts : {1, 2, 3, 7}) {
    const auto cuts = random_cuts(rng, parts);
    std::vector<db::FeatureIndex> pieces;
    for (std::size_t p = 0; p + 1 < cuts.size(); ++p)
      pieces.push_back(slice(db.index, cuts[p], cuts[p + 1]));
    CHECK(db::concatenate(std::move(pieces)) == db.index);
  }
  std::vector<db::FeatureIndex> backwards;
  backwards.push_back(slice(db.index, 1u << 31, index::feature_space_end));
  backwards.push_back(slice(db.index, 0, 1u << 31));
  CHECK_THROWS_AS(db::concatenate(std::move(backwards)), std::invalid_argument);
}

TEST_CASE("a database written in parts is the file save() writes") {
  test::ScratchDir dir("part_writer");
  std::mt19937_64 rng(23);
  for (std::uint64_t seed : {1, 2}) {
    const db::Database db = seed == 1 ? large_database(seed) : db::test::make_database(seed);
    db::save(db, dir.path() / "whole.mwdb");
    const std::vector<char> whole = read_bytes(dir.path() / "whole.mwdb");
    for (int parts : {1, 2, 3, 5}) {
      CAPTURE(seed, parts);
      const auto cuts = random_cuts(rng, parts);
      {
        db::PartWriter writer(dir.path() / "parts.mwdb", db.params.max_locations_per_feature,
                              db.targets, unsigned(1 + parts % 3));
        for (std::size_t p = 0; p + 1 < cuts.size(); ++p)
          writer.append(slice(db.index, cuts[p], cuts[p + 1]));
        CHECK(writer.locations() == db.index.location_count());
        // The spills hold the index in the file's encoding, no more: the
        // features, their counts and the locations' window ids take the
        // bytes of those sections of the whole database's file.
        CHECK(bytes_beside(dir.path(), "whole.mwdb", "parts.mwdb") == index_section_bytes(db));
        writer.finish(db.params, db.targets, db.taxonomy);
      }
      REQUIRE(read_bytes(dir.path() / "parts.mwdb") == whole);
      const db::Database loaded = db::load(dir.path() / "parts.mwdb");
      CHECK(loaded.index == db.index);
    }
  }
  // Nothing but the two databases is left: the spill files are gone.
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir.path())) files += entry.is_regular_file();
  CHECK(files == 2);
}

TEST_CASE("a database written in parts that fails leaves the old file and no spill files") {
  test::ScratchDir dir("part_writer_failure");
  const db::Database db = db::test::make_database(4);
  const fs::path path = dir.path() / "db.mwdb";
  db::save(db, path);
  const std::vector<char> before = read_bytes(path);
  {
    db::PartWriter writer(path, db.params.max_locations_per_feature, db.targets);
    writer.append(slice(db.index, 1000, index::feature_space_end));
    // Out of order: the second part's features are below the first's.
    CHECK_THROWS_AS(writer.append(slice(db.index, 0, 1000)), std::invalid_argument);
  }  // never finished
  CHECK(read_bytes(path) == before);
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir.path())) files += entry.is_regular_file();
  CHECK(files == 1);
}

TEST_CASE("a database written in parts refuses to finish with targets other than its parts'") {
  test::ScratchDir dir("part_writer_targets");
  const db::Database db = db::test::make_database(5);
  db::PartWriter writer(dir.path() / "db.mwdb", db.params.max_locations_per_feature, db.targets);
  writer.append(db.index);
  std::vector<db::Target> other = db.targets;
  other.front().windows += 1;  // every later target's window ids would move
  CHECK_THROWS_AS(writer.finish(db.params, other, db.taxonomy), std::logic_error);
  CHECK_FALSE(fs::exists(dir.path() / "db.mwdb"));
}
