// save()/load() on databases whose sections span many checksum chunks: the
// bytes and the loaded content do not depend on the thread count, damage
// anywhere in a large section is found by every thread count, and files of
// format versions 1 (one checksum per section) and 3 (the index as it is in
// memory) still load.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "db/checksum.hpp"
#include "db/database.hpp"
#include "db/file_format.hpp"
#include "file_bytes.hpp"
#include "large_database.hpp"
#include "sample_database.hpp"
#include "scratch_dir.hpp"
#include "version3_file.hpp"

using namespace metawarp::db;
namespace fs = std::filesystem;
using namespace metawarp::db::test;
using metawarp::test::ScratchDir;

namespace {


std::string load_error(const fs::path& p, unsigned threads) {
  try {
    load(p, threads);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

template <class T>
T read_at(const std::vector<char>& bytes, std::size_t offset) {
  T v;
  std::memcpy(&v, bytes.data() + offset, sizeof v);
  return v;
}

template <class T>
void write_at(std::vector<char>& bytes, std::size_t offset, T v) {
  std::memcpy(bytes.data() + offset, &v, sizeof v);
}

std::size_t section_entry(std::size_t section) {
  return ff::fixed_header_bytes + ff::section_entry_bytes * section;
}

}  // namespace

TEST_CASE("the sample for these tests spans several checksum chunks") {
  const Database db = large_database();
  // In the file (format version 4): 4 bytes per location, 1 per count.
  CHECK(db.index.locations().size() * 4 > 5 * ff::checksum_chunk_bytes);
  CHECK(db.index.feature_count() > ff::checksum_chunk_bytes);
}

TEST_CASE("a database written by 1 or many threads has the same bytes; loads are the same") {
  ScratchDir dir("threads");
  const Database db = large_database();
  const fs::path one = dir.path() / "one.mwdb";
  save(db, one, 1);
  const std::vector<char> bytes = read_bytes(one);
  CHECK(read_at<std::uint32_t>(bytes, 4) == format_version);
  for (unsigned threads : {2u, 3u, 7u, 16u, 0u}) {
    const fs::path many = dir.path() / ("many" + std::to_string(threads) + ".mwdb");
    save(db, many, threads);
    INFO("save threads " << threads);
    CHECK(read_bytes(many) == bytes);
  }
  for (unsigned threads : {1u, 2u, 3u, 5u, 16u, 0u}) {
    INFO("load threads " << threads);
    const Database loaded = load(one, threads);
    REQUIRE(loaded.index == db.index);
    REQUIRE(loaded.targets.size() == db.targets.size());
    REQUIRE(loaded.taxonomy.nodes().size() == db.taxonomy.nodes().size());
  }
}

TEST_CASE("damage anywhere in a large section is found by every thread count") {
  ScratchDir dir("damage");
  const fs::path path = dir.path() / "db.mwdb";
  save(large_database(), path);
  const std::vector<char> good = read_bytes(path);
  const std::size_t locations = 5;
  const auto offset = read_at<std::uint64_t>(good, section_entry(locations) + 8);
  const auto size = read_at<std::uint64_t>(good, section_entry(locations) + 16);
  // First byte, the last byte of a chunk, the first of the next, the middle
  // of a chunk, the last chunk (shorter than the others), the last byte.
  for (std::uint64_t at : {std::uint64_t(0), std::uint64_t(ff::checksum_chunk_bytes - 1),
                           std::uint64_t(ff::checksum_chunk_bytes),
                           std::uint64_t(3 * ff::checksum_chunk_bytes + 12345),
                           size / ff::checksum_chunk_bytes * ff::checksum_chunk_bytes + 8,
                           size - 1}) {
    std::vector<char> bad = good;
    bad[offset + at] ^= 0x04;
    write_bytes(path, bad);
    for (unsigned threads : {1u, 3u, 0u}) {
      INFO("byte " << at << " of the locations, threads " << threads);
      const std::string error = load_error(path, threads);
      CHECK(error.find("checksum mismatch in section 'locations'") != std::string::npos);
      CHECK(error.find(path.string()) != std::string::npos);
    }
  }
  // Two chunks swapped keep every chunk's own checksum: the section's
  // checksum depends on their order.
  std::vector<char> swapped = good;
  std::swap_ranges(swapped.begin() + std::ptrdiff_t(offset),
                   swapped.begin() + std::ptrdiff_t(offset + ff::checksum_chunk_bytes),
                   swapped.begin() + std::ptrdiff_t(offset + ff::checksum_chunk_bytes));
  write_bytes(path, swapped);
  CHECK(load_error(path, 0).find("checksum mismatch in section 'locations'") != std::string::npos);
}

TEST_CASE("files of format versions 1 and 3 still load, and their damage is still found") {
  ScratchDir dir("version1");
  const fs::path path = dir.path() / "db.mwdb";
  const Database db = large_database();
  const std::vector<char> v3 = version_3_bytes(db);
  const std::vector<char> v1 = as_version_1(v3);
  for (const std::vector<char>* old : {&v3, &v1}) {
    write_bytes(path, *old);
    for (unsigned threads : {1u, 0u}) {
      const Database loaded = load(path, threads);
      CHECK(loaded.index == db.index);
    }
  }
  // Saving it again writes the current version, in fewer bytes.
  save(load(path), dir.path() / "again.mwdb");
  const std::vector<char> again = read_bytes(dir.path() / "again.mwdb");
  CHECK(read_at<std::uint32_t>(again, 4) == format_version);
  CHECK(again.size() < v3.size() * 6 / 10);

  std::vector<char> bad = v1;
  const auto offset = read_at<std::uint64_t>(bad, section_entry(4) + 8);
  bad[offset + 2 * ff::checksum_chunk_bytes + 5] ^= 0x40;
  write_bytes(path, bad);
  CHECK(load_error(path, 0).find("checksum mismatch in section 'offsets'") != std::string::npos);
  // Content checks still run on older files: a location past its target's
  // windows, in the last chunk, under valid checksums.
  for (std::uint32_t version : {3u, 1u}) {
    bad = v3;
    const auto at = read_at<std::uint64_t>(bad, section_entry(5) + 8);
    const auto bytes = read_at<std::uint64_t>(bad, section_entry(5) + 16);
    write_at<std::uint32_t>(bad, at + bytes - 4, 1u << 30);  // the last location's window
    write_at(bad, section_entry(5) + 32, section_checksum(3, bad.data() + at, bytes));
    write_bytes(path, version == 1 ? as_version_1(bad) : relabelled(bad, 3));
    CAPTURE(version);
    CHECK(load_error(path, 0).find("outside the targets' windows") != std::string::npos);
  }
  // A version-3 file that claims to be version 1 (or the reverse) fails its checksums.
  write_bytes(path, relabelled(v3, 1));
  CHECK(load_error(path, 0).find("checksum mismatch in section") != std::string::npos);
  // A version-3 file that claims to be version 4 is refused by its layout.
  write_bytes(path, relabelled(v3, 4));
  CHECK(load_error(path, 0).find("corrupted section table") != std::string::npos);
}

TEST_CASE("chunked_checksum is checksum64 over the chunks' checksum64s, for any thread count") {
  std::mt19937_64 rng(4);
  std::vector<char> data(3 * ff::checksum_chunk_bytes + 1000);
  for (auto& c : data) c = char(rng());
  for (std::size_t size : {std::size_t(0), std::size_t(1), ff::checksum_chunk_bytes,
                           ff::checksum_chunk_bytes + 1, data.size()}) {
    std::vector<std::uint64_t> sums;
    for (std::size_t at = 0; at < size; at += ff::checksum_chunk_bytes)
      sums.push_back(checksum64(data.data() + at, std::min(ff::checksum_chunk_bytes, size - at)));
    const std::uint64_t expected = checksum64(sums.data(), sums.size() * 8);
    CAPTURE(size);
    CHECK(checksum_chunk_count(size) == sums.size());
    for (unsigned threads : {1u, 2u, 5u, 0u}) CHECK(chunked_checksum(data.data(), size, threads) == expected);
    CHECK(section_checksum(2, data.data(), size) == expected);
    CHECK(section_checksum(1, data.data(), size) == checksum64(data.data(), size));
  }
}

namespace {

// Copies what load() shows into arrays of its own, counting the bytes.
class CopyingObserver final : public IndexReadObserver {
 public:
  void sizes(std::uint64_t features, std::uint64_t locations) override {
    ++sizes_calls;
    arrays[0].assign(features * sizeof(feature_t), 0);
    arrays[1].assign((features + 1) * sizeof(std::uint64_t), 0);
    arrays[2].assign(locations * sizeof(Location), 0);
  }
  void chunk(Array array, std::uint64_t begin, const void* data, std::size_t bytes) override {
    std::lock_guard lock(mutex);
    if (sizes_calls != 1) chunk_before_sizes = true;
    std::vector<char>& to = arrays[std::size_t(array)];
    if (begin + bytes > to.size()) {  // no assertions here: this is a reading thread
      out_of_range = true;
      return;
    }
    std::memcpy(to.data() + begin, data, bytes);
    shown[std::size_t(array)] += bytes;
  }
  std::mutex mutex;
  int sizes_calls = 0;
  bool chunk_before_sizes = false;
  bool out_of_range = false;
  std::vector<char> arrays[3];
  std::uint64_t shown[3] = {0, 0, 0};
};

template <class T>
bool same_bytes(const std::vector<char>& bytes, const IndexArray<T>& array) {
  return bytes.size() == array.size() * sizeof(T) &&
         std::memcmp(bytes.data(), array.data(), bytes.size()) == 0;
}

}  // namespace

TEST_CASE("load shows the observer every byte of the index arrays once, after their sizes") {
  ScratchDir dir("observer");
  const fs::path path = dir / "db.mwdb";
  save(large_database(), path);
  for (unsigned threads : {1u, 4u}) {
    CopyingObserver observer;
    const Database loaded = load(path, threads, &observer);
    CHECK(observer.sizes_calls == 1);
    CHECK_FALSE(observer.chunk_before_sizes);
    CHECK_FALSE(observer.out_of_range);
    CHECK(same_bytes(observer.arrays[0], loaded.index.features()));
    CHECK(same_bytes(observer.arrays[1], loaded.index.offsets()));
    CHECK(same_bytes(observer.arrays[2], loaded.index.locations()));
    for (int a = 0; a < 3; ++a) CHECK(observer.shown[a] == observer.arrays[a].size());
  }
}
