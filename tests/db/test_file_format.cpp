// save()/load(): round trip, byte-identical output, and rejection of damaged,
// foreign and newer files with a message that says what is wrong.
#include <cstring>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "db/checksum.hpp"
#include "db/database.hpp"
#include "db/metadata.hpp"
#include "file_bytes.hpp"
#include "metawarp/sketch/sketch.hpp"
#include "sample_database.hpp"
#include "scratch_dir.hpp"
#include "version3_file.hpp"

using namespace metawarp;
using namespace metawarp::db;
using metawarp::db::test::make_database;
namespace fs = std::filesystem;
using metawarp::db::test::read_bytes;
using metawarp::db::test::write_bytes;
using metawarp::test::ScratchDir;

namespace {


void require_equal(const Database& a, const Database& b) {
  REQUIRE(a.params.sketch.k == b.params.sketch.k);
  REQUIRE(a.params.sketch.window == b.params.sketch.window);
  REQUIRE(a.params.sketch.sketch_size == b.params.sketch.sketch_size);
  REQUIRE(a.params.sketch.sampling == b.params.sketch.sampling);
  REQUIRE(a.params.sketch.sampling_parameter == b.params.sketch.sampling_parameter);
  REQUIRE(a.params.max_locations_per_feature == b.params.max_locations_per_feature);
  REQUIRE(a.params.remove_overpopulated_features == b.params.remove_overpopulated_features);
  REQUIRE(a.targets.size() == b.targets.size());
  for (std::size_t i = 0; i < a.targets.size(); ++i) {
    const Target &x = a.targets[i], &y = b.targets[i];
    REQUIRE(x.name == y.name);
    REQUIRE(x.accession == y.accession);
    REQUIRE(x.taxid == y.taxid);
    REQUIRE(x.length == y.length);
    REQUIRE(x.windows == y.windows);
    REQUIRE(x.source_file == y.source_file);
  }
  REQUIRE(a.taxonomy.nodes().size() == b.taxonomy.nodes().size());
  for (std::size_t i = 0; i < a.taxonomy.nodes().size(); ++i) {
    const auto &x = a.taxonomy.nodes()[i], &y = b.taxonomy.nodes()[i];
    REQUIRE(x.id == y.id);
    REQUIRE(x.parent == y.parent);
    REQUIRE(x.rank == y.rank);
    REQUIRE(x.name == y.name);
  }
  REQUIRE(a.taxonomy.merged() == b.taxonomy.merged());
  REQUIRE(a.index == b.index);
}

// The message load() throws, or "" if it does not throw.
std::string load_error(const fs::path& p) {
  try {
    load(p);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

template <class T>
T read_at(const std::vector<char>& bytes, std::size_t offset) {
  T v;
  std::memcpy(&v, bytes.data() + offset, sizeof v);
  return v;
}

void set_u64(std::vector<char>& bytes, std::size_t at, std::uint64_t v) {
  std::memcpy(bytes.data() + at, &v, 8);
}

// Re-seals the header after an edit, so that only the plausibility checks can object.
void reseal_header(std::vector<char>& bytes) {
  set_u64(bytes, 296, checksum64(bytes.data(), 296));
}

// Section table per docs/database-format.md: 6 entries of 40 bytes from byte 56.
std::size_t section_entry(std::size_t section) { return 56 + 40 * section; }

// Re-seals a section (and the header) after an edit of its payload.
void reseal_section(std::vector<char>& bytes, std::size_t section) {
  const std::size_t entry = section_entry(section);
  const auto offset = read_at<std::uint64_t>(bytes, entry + 8);
  const auto size = read_at<std::uint64_t>(bytes, entry + 16);
  const auto version = read_at<std::uint32_t>(bytes, 4);
  set_u64(bytes, entry + 32, section_checksum(version, bytes.data() + offset, size));
  reseal_header(bytes);
}

bool temp_files_in(const fs::path& dir) {
  for (const auto& e : fs::directory_iterator(dir))
    if (contains(e.path().filename().string(), ".tmp-")) return true;
  return false;
}

}  // namespace

TEST_CASE("save/load round trip and byte-identical files") {
  ScratchDir dir("roundtrip");
  const Database db = make_database(1);
  const fs::path a = dir.path() / "a.mwdb", b = dir.path() / "b.mwdb", c = dir.path() / "c.mwdb";
  save(db, a);
  const Database loaded = load(a);
  require_equal(db, loaded);
  for (std::size_t i = 0; i < db.index.feature_count(); i += 11) {
    const auto x = db.index.find(db.index.features()[i]);
    const auto y = loaded.index.find(db.index.features()[i]);
    REQUIRE(std::vector<Location>(x.begin(), x.end()) == std::vector<Location>(y.begin(), y.end()));
  }
  save(make_database(1), b);  // rebuilt from scratch
  save(loaded, c);            // re-saved after loading
  CHECK(read_bytes(a) == read_bytes(b));
  CHECK(read_bytes(a) == read_bytes(c));
  CHECK_FALSE(temp_files_in(dir.path()));

  save(make_database(2), a);  // overwrites an existing database
  require_equal(make_database(2), load(a));

  Database empty;
  save(empty, b);
  require_equal(empty, load(b));
}

TEST_CASE("load rejects damaged sections naming the section") {
  ScratchDir dir("corrupt");
  const fs::path path = dir.path() / "db.mwdb";
  save(make_database(3), path);
  const std::vector<char> good = read_bytes(path);
  const char* names[] = {"targets", "taxonomy nodes", "taxonomy merged",
                         "features", "counts", "locations"};
  // Section table per docs/database-format.md: 6 entries of 40 bytes from byte 56.
  for (std::size_t s = 0; s < 6; ++s) {
    const std::size_t entry = 56 + 40 * s;
    const auto offset = read_at<std::uint64_t>(good, entry + 8);
    const auto size = read_at<std::uint64_t>(good, entry + 16);
    REQUIRE(size > 0);
    for (std::uint64_t at : {offset, offset + size / 2, offset + size - 1}) {
      std::vector<char> bad = good;
      bad[at] ^= 0x10;
      write_bytes(path, bad);
      const std::string error = load_error(path);
      INFO("section " << names[s] << " byte " << at << ": " << error);
      CHECK(contains(error, "checksum mismatch in section '" + std::string(names[s]) + "'"));
      CHECK(contains(error, path.string()));
    }
  }
  // Header fields (k, a section offset, the file size) are covered by the header checksum.
  for (std::size_t at : {std::size_t(20), std::size_t(50), std::size_t(56 + 40 * 3 + 8)}) {
    std::vector<char> bad = good;
    bad[at] ^= 0x01;
    write_bytes(path, bad);
    INFO("header byte " << at);
    CHECK(contains(load_error(path), "checksum mismatch in the header"));
  }
}

TEST_CASE("load rejects truncated, foreign, newer and missing files") {
  ScratchDir dir("reject");
  const fs::path path = dir.path() / "db.mwdb";
  save(make_database(4), path);
  const std::vector<char> good = read_bytes(path);

  for (std::size_t keep : {good.size() - 1, good.size() / 2, std::size_t(300), std::size_t(20)}) {
    write_bytes(path, std::vector<char>(good.begin(), good.begin() + std::ptrdiff_t(keep)));
    INFO("kept " << keep << " bytes");
    CHECK(contains(load_error(path), "truncated"));
  }

  std::vector<char> longer = good;
  longer.push_back(0);
  write_bytes(path, longer);
  CHECK(contains(load_error(path), "unexpected bytes"));

  std::vector<char> foreign = good;
  foreign[0] = 'X';
  write_bytes(path, foreign);
  CHECK(contains(load_error(path), "not a metawarp database"));
  write_bytes(path, {'>', 's', 'e', 'q', '\n', 'A', 'C', 'G', 'T', '\n'});
  CHECK(contains(load_error(path), "not a metawarp database"));
  write_bytes(path, {});
  CHECK(contains(load_error(path), "not a metawarp database"));

  std::vector<char> newer = good;
  const std::uint32_t next_version = format_version + 1;
  std::memcpy(newer.data() + 4, &next_version, 4);
  write_bytes(path, newer);
  CHECK(contains(load_error(path), "newer metawarp"));

  std::vector<char> swapped = good;
  std::swap(swapped[8], swapped[11]);
  std::swap(swapped[9], swapped[10]);
  write_bytes(path, swapped);
  CHECK(contains(load_error(path), "byte order"));

  const std::string missing = load_error(dir.path() / "nope.mwdb");
  CHECK(contains(missing, "no such file"));
  CHECK(contains(missing, "nope.mwdb"));
}

// Format version 3 keeps the sampling in header bytes 44 to 47; files of
// versions 1 and 2 (reserved bytes, 0) hold minhash windows and load as such.
TEST_CASE("the sampling is saved and loaded; version 2 files load as window sampling") {
  ScratchDir dir("sampling");
  const fs::path path = dir.path() / "db.mwdb";
  for (const auto& [sampling, parameter] :
       {std::pair{sketch::Sampling::scaled, 8u}, std::pair{sketch::Sampling::scaled, 65535u},
        std::pair{sketch::Sampling::minimizer, 12u}, std::pair{sketch::Sampling::window, 0u}}) {
    Database db = make_database(3);
    db.params.sketch.sampling = sampling;
    db.params.sketch.sampling_parameter = parameter;
    save(db, path);
    const std::vector<char> bytes = read_bytes(path);
    CHECK(read_at<std::uint32_t>(bytes, 4) == format_version);
    CHECK(read_at<std::uint32_t>(bytes, 44) == (std::uint32_t(sampling) | (parameter << 16)));
    require_equal(load(path), db);
    CHECK(load_metadata(path).db.params.sketch.sampling == sampling);
  }
  // A window-sampled file of version 3 relabelled as version 2 (the same
  // layout and checksums): it loads, as window sampling.
  std::vector<char> v2 = db::test::relabelled(db::test::version_3_bytes(make_database(3)), 2);
  write_bytes(path, v2);
  const Database old = load(path);
  CHECK(old.params.sketch.sampling == sketch::Sampling::window);
  CHECK(old.params.sketch.sampling_parameter == 0);
  // In a version-2 file the bytes were reserved: anything but 0 is refused.
  const std::uint32_t scaled8 = 1 | (8u << 16);
  std::memcpy(v2.data() + 44, &scaled8, 4);
  reseal_header(v2);
  write_bytes(path, v2);
  CHECK(contains(load_error(path), "header field reserved (bytes 44 to 47) is 524289: must be 0"));
}

TEST_CASE("a failed save leaves neither a database nor a temporary file") {
  ScratchDir dir("failsave");
  const Database db = make_database(5);
  // The destination is a non-empty directory: writing works, the rename fails.
  const fs::path blocked = dir.path() / "blocked";
  fs::create_directories(blocked / "inside");
  CHECK_THROWS_AS(save(db, blocked), std::runtime_error);
  CHECK(fs::is_directory(blocked));
  CHECK_FALSE(temp_files_in(dir.path()));
  // The destination's folder does not exist: nothing can be created.
  CHECK_THROWS_AS(save(db, dir.path() / "missing" / "db.mwdb"), std::runtime_error);
  CHECK_FALSE(fs::exists(dir.path() / "missing"));
}

TEST_CASE("load rejects implausible content even with matching checksums") {
  ScratchDir dir("implausible");
  const fs::path path = dir.path() / "db.mwdb";
  save(make_database(6), path);
  const std::vector<char> good = read_bytes(path);
  const std::size_t features_entry = section_entry(3), locations_entry = section_entry(5);

  std::vector<char> bad = good;
  set_u64(bad, features_entry + 24, read_at<std::uint64_t>(good, features_entry + 24) * 1000);
  reseal_header(bad);
  write_bytes(path, bad);
  CHECK(contains(load_error(path), "implausible element count"));

  bad = good;
  std::memcpy(bad.data() + 20, "\x00\x00\x00\x00", 4);  // k = 0
  reseal_header(bad);
  write_bytes(path, bad);
  CHECK(contains(load_error(path), "header field k (k-mer length) is 0"));

  // A location (a global window id) past the targets' windows, with a valid
  // section checksum.
  bad = good;
  const auto offset = read_at<std::uint64_t>(good, locations_entry + 8);
  const std::uint32_t past_the_windows = 0xfffffff0u;
  std::memcpy(bad.data() + offset, &past_the_windows, 4);
  reseal_section(bad, 5);
  write_bytes(path, bad);
  CHECK(contains(load_error(path), "location (window id 4294967280) outside the targets' windows"));

  // Counts that do not add up to the locations, with a valid checksum.
  bad = good;
  bad[read_at<std::uint64_t>(good, section_entry(4) + 8)] += 1;
  reseal_section(bad, 4);
  write_bytes(path, bad);
  CHECK(contains(load_error(path), "corrupted feature index: the counts add up to"));

  // Counts narrower than the cap needs (the header's cap raised to 300: 2
  // bytes), with a valid header checksum: a database has one file.
  bad = good;
  std::memcpy(bad.data() + 32, "\x2c\x01\x00\x00", 4);
  reseal_header(bad);
  write_bytes(path, bad);
  CHECK(contains(load_error(path),
                 "corrupted section table: counts of 1 bytes, but max locations per feature 300 takes 2"));
}

// Hand-made databases: each insane value with valid checksums is refused by
// the full load and by the metadata load (the partitioned query's), the
// message naming the database and the field.
TEST_CASE("load refuses insane header and target values even with valid checksums") {
  ScratchDir dir("insane");
  const fs::path path = dir.path() / "db.mwdb";
  const Database db = make_database(8);
  save(db, path);
  const std::vector<char> good = read_bytes(path);
  const std::size_t targets = read_at<std::uint64_t>(good, section_entry(0) + 8);
  const auto set_u32 = [](std::vector<char>& bytes, std::size_t at, std::uint32_t v) {
    std::memcpy(bytes.data() + at, &v, 4);
  };

  struct Case {
    std::string what;
    std::function<void(std::vector<char>&)> edit;
    std::vector<std::string> named;  // parts of the message
  };
  const std::vector<Case> cases{
      {"window length 2^32-1", [&](auto& b) { set_u32(b, 24, 0xffffffffu); },
       {"header field w (window length)", "4294967295", "16777216"}},
      {"k 33", [&](auto& b) { set_u32(b, 20, 33); }, {"header field k (k-mer length)", "33"}},
      {"k 0", [&](auto& b) { set_u32(b, 20, 0); }, {"header field k (k-mer length)", " 0"}},
      {"w below k", [&](auto& b) { set_u32(b, 24, 20); }, {"header field w (window length)", "20"}},
      {"s 65", [&](auto& b) { set_u32(b, 28, 65); }, {"header field s (sketch size)", "65"}},
      {"cap 0", [&](auto& b) { set_u32(b, 32, 0); },
       {"header field max locations per feature", " 0"}},
      {"hash id 2", [&](auto& b) { set_u32(b, 16, 2); }, {"header field k-mer hash function", "2"}},
      {"unknown flag", [&](auto& b) { set_u32(b, 36, 3); }, {"header field flags", "3"}},
      {"unknown sampling", [&](auto& b) { set_u32(b, 44, 7 | (3u << 16)); },
       {"header field sampling is 7", "must be 0 (window), 1 (scaled) or 2 (minimizer)"}},
      {"FracMinHash scale 1", [&](auto& b) { set_u32(b, 44, 1 | (1u << 16)); },
       {"header field c (FracMinHash scale) is 1", "between 2 and 65535"}},
      {"minimizer window 0", [&](auto& b) { set_u32(b, 44, 2); },
       {"header field W (minimizer window in k-mers) is 0", "between 2 and 128"}},
      {"window sampling with a parameter", [&](auto& b) { set_u32(b, 44, 5u << 16); },
       {"header field sampling parameter is 5", "window sampling takes none"}},
      {"more locations than the cap allows", [&](auto& b) { set_u32(b, 32, 1); },
       {"locations", "max locations per feature 1"}},
      {"target length 2^64-1",
       [&](auto& b) {
         set_u64(b, targets + 8, ~std::uint64_t(0));
         reseal_section(b, 0);
       },
       {"target 0 ('NC_000913.3')", "8 windows, but its length 18446744073709551615 gives "
        "141898031336227320 with k 21 and w 150"}},
      {"target windows not those of its length",
       [&](auto& b) {
         set_u32(b, targets + 4, db.targets[0].windows + 1);
         reseal_section(b, 0);
       },
       {"target 0 ('NC_000913.3')", std::to_string(db.targets[0].windows + 1) + " windows"}},
  };
  for (const Case& c : cases) {
    std::vector<char> bad = good;
    c.edit(bad);
    reseal_header(bad);
    write_bytes(path, bad);
    for (const bool whole : {true, false}) {
      std::string error;
      try {
        if (whole)
          load(path);
        else
          load_metadata(path);
      } catch (const std::runtime_error& e) {
        error = e.what();
      }
      INFO(c.what << (whole ? " (load)" : " (load_metadata)") << ": " << error);
      CHECK(error.rfind("database '" + path.string() + "': ", 0) == 0);
      for (const std::string& part : c.named) CHECK(contains(error, part));
    }
  }
}

TEST_CASE("every load error names the database once, in front") {
  ScratchDir dir("prefix");
  const fs::path path = dir.path() / "db.mwdb";
  save(make_database(7), path);
  const std::vector<char> good = read_bytes(path);
  const std::string prefix = "database '" + path.string() + "': ";
  const auto offset_of = [&](std::size_t section) {
    return std::size_t(read_at<std::uint64_t>(good, section_entry(section) + 8));
  };

  std::vector<std::string> errors;
  // The first node's rank code (after its id and parent), with valid checksums.
  std::vector<char> bad = good;
  bad[offset_of(1) + 8] = char(200);
  reseal_section(bad, 1);
  write_bytes(path, bad);
  errors.push_back(load_error(path));
  CHECK(errors.back() == prefix + "section 'taxonomy nodes': unknown rank code 200");
  // The first target's name claims more bytes than its section holds.
  bad = good;
  set_u64(bad, offset_of(0) + 16, 0xffffff);
  reseal_section(bad, 0);
  write_bytes(path, bad);
  errors.push_back(load_error(path));
  CHECK(errors.back() == prefix + "section 'targets': record runs past the end of the section");
  // Damage found by the header, by a section checksum, and no file at all.
  bad = good;
  bad[0] = 'X';
  write_bytes(path, bad);
  errors.push_back(load_error(path));
  bad = good;
  bad[offset_of(4)] ^= 1;
  write_bytes(path, bad);
  errors.push_back(load_error(path));
  fs::remove(path);
  errors.push_back(load_error(path));

  for (const std::string& error : errors) {
    INFO(error);
    CHECK(error.rfind(prefix, 0) == 0);
    CHECK(error.find("database '", 1) == std::string::npos);
  }
}
