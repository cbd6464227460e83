// PartialDatabase (db/partial_load.hpp): the parts of every plan, loaded and
// concatenated, are the loaded index; budgets are kept; damage is found both
// when the file is opened and in a part read later.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "db/checksum.hpp"
#include "db/database.hpp"
#include "db/file_format.hpp"
#include "db/metadata.hpp"
#include "db/partial_load.hpp"
#include "file_bytes.hpp"
#include "large_database.hpp"
#include "sample_database.hpp"
#include "scratch_dir.hpp"
#include "version3_file.hpp"

using namespace metawarp;
using namespace metawarp::db;
namespace fs = std::filesystem;
using namespace metawarp::db::test;
using metawarp::test::ScratchDir;

namespace {

// The parts loaded one by one and put back together, offsets shifted back.
FeatureIndex concatenated(const PartialDatabase& db, const std::vector<IndexPart>& parts,
                          unsigned threads) {
  IndexArray<feature_t> features;
  IndexArray<std::uint64_t> offsets(1, 0);
  IndexArray<Location> locations;
  for (const IndexPart& part : parts) {
    const FeatureIndex index = db.load_part(part, threads);
    REQUIRE(index.feature_count() == part.features());
    REQUIRE(index.location_count() == part.locations());
    REQUIRE(index.offsets().front() == 0);
    REQUIRE(std::all_of(index.features().begin(), index.features().end(),
                        [&](feature_t f) { return part.range.contains(f); }));
    const std::uint64_t base = locations.size();
    features.insert(features.end(), index.features().begin(), index.features().end());
    for (std::size_t i = 1; i < index.offsets().size(); ++i)
      offsets.push_back(base + index.offsets()[i]);
    locations.insert(locations.end(), index.locations().begin(), index.locations().end());
  }
  return FeatureIndex(std::move(features), std::move(offsets), std::move(locations));
}

// A plan's parts loaded: concatenated they are the whole index. A plan of
// thousands of parts would re-read and re-check the same checksum chunks
// thousands of times (minutes under ASan in CI), so a long plan is checked on
// a sample of its parts (the first, the last and about 16 between), each
// against its slice of the whole; check_tiling covers the rest.
void check_parts(const PartialDatabase& db, const std::vector<IndexPart>& parts,
                 const FeatureIndex& whole, unsigned threads) {
  if (parts.size() <= 64) {
    CHECK(concatenated(db, parts, threads) == whole);
    return;
  }
  std::vector<std::size_t> sample;
  for (std::size_t p = 0; p < parts.size(); p += parts.size() / 16 + 1) sample.push_back(p);
  if (sample.back() != parts.size() - 1) sample.push_back(parts.size() - 1);
  for (const std::size_t p : sample) {
    const IndexPart& part = parts[p];
    INFO("part " << p << " of " << parts.size());
    const FeatureIndex index = db.load_part(part, threads);
    REQUIRE(index.feature_count() == part.features());
    const std::uint64_t base = whole.offsets()[part.first_feature];
    for (std::uint64_t i = 0; i < part.features(); ++i) {
      CHECK(index.features()[i] == whole.features()[part.first_feature + i]);
      CHECK(index.offsets()[i + 1] == whole.offsets()[part.first_feature + i + 1] - base);
    }
    REQUIRE(index.location_count() == part.locations());
    CHECK(std::equal(index.locations().begin(), index.locations().end(),
                     whole.locations().begin() + std::ptrdiff_t(base)));
  }
}

// Parts in order, contiguous, covering every feature; ranges tile [0, 2^32).
void check_tiling(const PartialDatabase& db, const std::vector<IndexPart>& parts) {
  REQUIRE(!parts.empty());
  CHECK(parts.front().first_feature == 0);
  CHECK(parts.front().range.begin == 0);
  CHECK(parts.back().last_feature == db.feature_count());
  CHECK(parts.back().last_location == db.location_count());
  CHECK(parts.back().range.end == index::feature_space_end);
  for (std::size_t p = 1; p < parts.size(); ++p) {
    CHECK(parts[p].first_feature == parts[p - 1].last_feature);
    CHECK(parts[p].first_location == parts[p - 1].last_location);
    CHECK(parts[p].range.begin == parts[p - 1].range.end);
    CHECK(parts[p].features() > 0);
  }
}

std::string error_of(const auto& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

// The checksum of `section` (section `id` of the header) and the header's
// own made to match the bytes of `file` again, after a change to its content.
void with_checksum(std::vector<char>& file, const IndexSectionInfo& section, ff::SectionId id) {
  const std::uint64_t sum =
      section_checksum(format_version, file.data() + section.offset, section.bytes);
  const std::size_t entry =
      ff::fixed_header_bytes + ff::section_entry_bytes * (std::uint32_t(id) - 1);
  std::memcpy(file.data() + entry + 32, &sum, 8);
  const std::uint64_t header = checksum64(file.data(), ff::header_bytes - 8);
  std::memcpy(file.data() + ff::header_bytes - 8, &header, 8);
}

}  // namespace

TEST_CASE("partial load: every plan's parts concatenated are the loaded index") {
  ScratchDir dir("partial");
  for (const std::uint64_t seed : {1u, 2u, 3u}) {
    const fs::path path = dir / ("db" + std::to_string(seed) + ".mwdb");
    save(make_database(seed, int(2000 + 7000 * seed)), path);
    const Database whole = load(path);
    const PartialDatabase db(path, 2);
    CHECK(db.feature_count() == whole.index.feature_count());
    CHECK(db.location_count() == whole.index.location_count());
    CHECK(db.metadata().targets.size() == whole.targets.size());
    CHECK(db.metadata().taxonomy.nodes().size() == whole.taxonomy.nodes().size());
    CHECK(db.metadata().index.feature_count() == 0);
    for (const std::size_t count : {1u, 2u, 3u, 7u, 100000u}) {
      INFO("seed " << seed << ", " << count << " parts");
      const std::vector<IndexPart> parts = db.plan_parts(count);
      CHECK(parts.size() == std::min<std::size_t>(count, whole.index.feature_count()));
      check_tiling(db, parts);
      check_parts(db, parts, whole.index, 1 + seed % 3);
    }
    // Budgets: every part within it; the smallest that works holds the
    // longest list alone.
    std::uint64_t longest = 0;
    for (std::size_t i = 0; i < whole.index.feature_count(); ++i)
      longest = std::max(longest, whole.index.offsets()[i + 1] - whole.index.offsets()[i]);
    for (const std::uint64_t budget : {index_bytes(1, longest), std::uint64_t(5000),
                                       std::uint64_t(40000), std::uint64_t(1) << 40}) {
      INFO("seed " << seed << ", budget " << budget);
      const std::vector<IndexPart> parts = db.plan_by_bytes(budget);
      check_tiling(db, parts);
      for (const IndexPart& part : parts)
        CHECK(index_bytes(part.features(), part.locations()) <= budget);
      check_parts(db, parts, whole.index, 0);
      if (budget == std::uint64_t(1) << 40) CHECK(parts.size() == 1);
    }
    const std::string small = error_of([&] { db.plan_by_bytes(index_bytes(1, longest) - 1); });
    CHECK(small.find("allow at least " + std::to_string(index_bytes(1, longest)) + " bytes") !=
          std::string::npos);
    CHECK(small.find(path.string()) != std::string::npos);
  }
}

namespace {

// The cuts of plan_parts and plan_by_bytes by their rules applied feature by
// feature to the whole index (the plans pass the features in pieces, looking
// one by one only where a cut may fall: the same cuts).
std::vector<std::uint64_t> cuts_by_count(const FeatureIndex& whole, std::uint64_t count) {
  const auto& offsets = whole.offsets();
  const std::uint64_t features = whole.feature_count();
  count = std::clamp<std::uint64_t>(count, 1, std::max<std::uint64_t>(features, 1));
  const auto weight = [](std::uint64_t length) { return 12 + 8 * length; };
  const unsigned __int128 total = features * 12 + whole.location_count() * 8;
  std::vector<std::uint64_t> cuts;
  unsigned __int128 sum = 0;
  for (std::uint64_t f = 0; f < features; ++f) {
    sum += weight(offsets[f + 1] - offsets[f]);
    const std::uint64_t closed = cuts.size();
    if (closed + 1 >= count) break;
    if (sum * count >= total * (closed + 1) || features - f - 1 == count - closed - 1)
      cuts.push_back(f + 1);
  }
  cuts.push_back(features);
  return cuts;
}
std::vector<std::uint64_t> cuts_by_bytes(const FeatureIndex& whole, std::uint64_t max_bytes) {
  const auto& offsets = whole.offsets();
  std::vector<std::uint64_t> cuts;
  std::uint64_t features = 0, locations = 0;
  for (std::uint64_t f = 0; f < whole.feature_count(); ++f) {
    const std::uint64_t length = offsets[f + 1] - offsets[f];
    if (features > 0 && index_bytes(features + 1, locations + length) > max_bytes) {
      cuts.push_back(f);
      features = locations = 0;
    }
    ++features;
    locations += length;
  }
  cuts.push_back(whole.feature_count());
  return cuts;
}
std::vector<std::uint64_t> cuts_of(const std::vector<IndexPart>& parts) {
  std::vector<std::uint64_t> cuts;
  for (const IndexPart& part : parts) cuts.push_back(part.last_feature);
  return cuts;
}

}  // namespace

TEST_CASE("partial load: the plans cut where their rules say, feature by feature") {
  ScratchDir dir("partial_plans");
  const fs::path path = dir / "db.mwdb";
  save(large_database(), path);
  const Database whole = load(path);
  const PartialDatabase db(path, 2);
  REQUIRE(whole.index.feature_count() > 4 * 65536);  // pieces passed whole between the cuts
  for (std::uint64_t count : {1u, 2u, 3u, 5u, 8u, 64u, 1000u}) {
    CAPTURE(count);
    CHECK(cuts_of(db.plan_parts(count)) == cuts_by_count(whole.index, count));
  }
  const std::uint64_t all = index_bytes(whole.index.feature_count(), whole.index.location_count());
  for (std::uint64_t share : {2u, 3u, 7u, 40u}) {
    CAPTURE(share);
    CHECK(cuts_of(db.plan_by_bytes(all / share)) == cuts_by_bytes(whole.index, all / share));
  }
}

TEST_CASE("partial load: sections of many checksum chunks, and format versions 1 and 3") {
  ScratchDir dir("partial_large");
  const fs::path path = dir / "db.mwdb";
  const Database original = large_database();
  save(original, path);
  const fs::path v1 = dir / "v1.mwdb", v3 = dir / "v3.mwdb";
  write_bytes(v3, version_3_bytes(original));
  write_bytes(v1, as_version_1(version_3_bytes(original)));
  for (const fs::path& file : {path, v3, v1}) {
    INFO(file);
    const PartialDatabase db(file, 3);
    for (const std::size_t count : {1u, 2u, 3u, 5u, 64u})
      CHECK(concatenated(db, db.plan_parts(count), count % 4) == original.index);
    CHECK(concatenated(db, db.plan_by_bytes(std::uint64_t(1) << 20), 0) == original.index);
  }
}

TEST_CASE("partial load: an empty index is one empty part") {
  ScratchDir dir("partial_empty");
  Database empty = make_database(5, 0);
  REQUIRE(empty.index.feature_count() == 0);
  save(empty, dir / "db.mwdb");
  const PartialDatabase db(dir / "db.mwdb");
  for (const auto& parts : {db.plan_parts(3), db.plan_by_bytes(1000)}) {
    REQUIRE(parts.size() == 1);
    CHECK(parts[0].range.all());
    CHECK(db.load_part(parts[0]).feature_count() == 0);
  }
}

TEST_CASE("partial load: damage is found when opening, and in a part read later") {
  ScratchDir dir("partial_damage");
  const fs::path path = dir / "db.mwdb";
  save(large_database(), path);
  const std::vector<char> good = read_bytes(path);
  const DatabaseMetadata meta = load_metadata(path);

  // Damage before opening: the streaming check finds it, as load() would.
  for (const auto& [section, name] : {std::pair{meta.features, "features"},
                                      std::pair{meta.offsets, "counts"},
                                      std::pair{meta.locations, "locations"}}) {
    std::vector<char> bad = good;
    bad[section.offset + section.bytes / 2] ^= 0x10;
    write_bytes(path, bad);
    const std::string error = error_of([&] { PartialDatabase db(path); });
    INFO(error);
    CHECK(error.find(std::string("checksum mismatch in section '") + name + "'") !=
          std::string::npos);
    CHECK(error.find(path.string()) != std::string::npos);
  }

  // Damage after opening: only a part that touches the damaged chunk fails.
  write_bytes(path, good);
  const PartialDatabase db(path);
  const std::vector<IndexPart> parts = db.plan_parts(4);
  REQUIRE(parts.size() == 4);
  const IndexPart& target = parts[2];
  const std::uint64_t location = (target.first_location + target.last_location) / 2;
  const std::uint64_t width = meta.locations.element_size;  // a global window id
  REQUIRE(width == 4);
  std::vector<char> bad = good;
  bad[meta.locations.offset + location * width + 3] ^= 0x01;
  write_bytes(path, bad);
  const std::string error = error_of([&] { db.load_part(target); });
  INFO(error);
  CHECK(error.find("checksum mismatch in section 'locations'") != std::string::npos);
  CHECK(error.find(path.string()) != std::string::npos);
  const std::uint64_t damaged_chunk = location * width / ff::checksum_chunk_bytes;
  for (const IndexPart& part : parts) {
    const std::uint64_t first_chunk = part.first_location * width / ff::checksum_chunk_bytes;
    const std::uint64_t last_chunk = (part.last_location * width - 1) / ff::checksum_chunk_bytes;
    if (damaged_chunk >= first_chunk && damaged_chunk <= last_chunk) continue;
    CHECK_NOTHROW(db.load_part(part));
  }

  CHECK(error_of([&] { PartialDatabase again(path); })
            .find("checksum mismatch in section 'locations'") != std::string::npos);

  // A location outside the targets' windows, with checksums that match: the
  // content check of load() (step 12).
  std::vector<char> outside = good;
  const std::uint32_t id = 0xfffffff0u;
  std::memcpy(outside.data() + meta.locations.offset + location * width, &id, 4);
  with_checksum(outside, meta.locations, ff::SectionId::locations);
  write_bytes(path, outside);
  const std::string load_message = error_of([&] { load(path); });
  const std::string partial_message = error_of([&] { PartialDatabase again(path); });
  CHECK(load_message.find("outside the targets' windows") != std::string::npos);
  CHECK(partial_message == load_message);
}

TEST_CASE("partial load: features out of order and counts that do not add up, as load() says") {
  ScratchDir dir("partial_content");
  const fs::path path = dir / "db.mwdb";
  save(large_database(), path);
  const std::vector<char> good = read_bytes(path);
  const DatabaseMetadata meta = load_metadata(path);
  REQUIRE(meta.features.bytes > 2 * ff::checksum_chunk_bytes);  // checked in several pieces
  // A feature equal to the one before it: in the middle, first of a checksum
  // chunk, and the last.
  const std::uint64_t features = meta.features.bytes / sizeof(std::uint32_t);
  for (std::uint64_t at : {features / 2 + 1, std::uint64_t(ff::checksum_chunk_bytes / 4), features - 1}) {
    CAPTURE(at);
    std::vector<char> bad = good;
    char* f = bad.data() + meta.features.offset;
    std::memcpy(f + at * 4, f + (at - 1) * 4, 4);
    with_checksum(bad, meta.features, ff::SectionId::features);
    write_bytes(path, bad);
    const std::string load_message = error_of([&] { load(path); });
    const std::string partial_message = error_of([&] { PartialDatabase again(path); });
    CHECK(load_message.find("features not strictly ascending at " + std::to_string(at)) !=
          std::string::npos);
    CHECK(partial_message == load_message);
  }
  // A count one larger: the counts add up to one location more.
  std::vector<char> bad = good;
  REQUIRE(meta.offsets.element_size == 1);
  bad[meta.offsets.offset + meta.offsets.bytes / 3] += 1;
  with_checksum(bad, meta.offsets, ff::SectionId::offsets);
  write_bytes(path, bad);
  const std::string load_message = error_of([&] { load(path); });
  CHECK(load_message.find("the counts add up to") != std::string::npos);
  CHECK(error_of([&] { PartialDatabase again(path); }) == load_message);
}
