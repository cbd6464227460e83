// Checksum64 in pieces equals checksum64 at once, and read_and_checksum
// (format 1) and read_chunked (format 2) read exactly the bytes at their
// offset (any size, chunk boundaries anywhere) and say when the file ends first.
#include <cstdio>
#include <filesystem>
#include <algorithm>
#include <fstream>
#include <mutex>
#include <random>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "catch.hpp"
#include "db/checksum.hpp"
#include "db/file_format.hpp"
#include "db/parallel_read.hpp"

using namespace metawarp::db;

namespace {

std::vector<char> random_bytes(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<char> v(n);
  for (auto& c : v) c = static_cast<char>(rng());
  return v;
}

}  // namespace

TEST_CASE("Checksum64 over pieces equals checksum64 over the whole") {
  const std::vector<char> data = random_bytes(4096 + 77, 3);
  for (std::size_t blocks : {0, 1, 5, 128}) {
    for (std::size_t rest : {0, 1, 8, 31, 32, 77}) {
      const std::size_t n = 32 * blocks + rest;
      Checksum64 sum;
      for (std::size_t b = 0; b < blocks; ++b) sum.add(data.data() + 32 * b, 32);
      CAPTURE(blocks, rest);
      REQUIRE(sum.finish(data.data() + 32 * blocks, rest) == checksum64(data.data(), n));
    }
  }
}

TEST_CASE("read_and_checksum reads and checksums the bytes at an offset") {
  const auto path = std::filesystem::temp_directory_path() / "metawarp_parallel_read.bin";
  const std::vector<char> file = random_bytes(300000, 9);
  std::ofstream(path, std::ios::binary).write(file.data(), std::streamsize(file.size()));
  const int fd = ::open(path.c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  for (std::size_t chunk : {32, 4096, 65536, 1 << 20}) {
    for (std::size_t offset : {0, 13, 4096}) {
      for (std::size_t n : {0, 1, 31, 4096, 100001, 250000}) {
        CAPTURE(chunk, offset, n);
        std::vector<char> out(n + 1, 'x');
        const auto sum = read_and_checksum(fd, offset, out.data(), n, chunk);
        REQUIRE(sum.has_value());
        REQUIRE(*sum == checksum64(file.data() + offset, n));
        REQUIRE(std::equal(out.begin(), out.begin() + long(n), file.begin() + long(offset)));
        REQUIRE(out[n] == 'x');  // nothing written past n
      }
    }
    std::vector<char> out(file.size());
    CHECK_FALSE(read_and_checksum(fd, 100, out.data(), file.size(), chunk).has_value());
  }
  ::close(fd);
  std::filesystem::remove(path);
}

TEST_CASE("read_chunked reads the bytes at an offset, sums them by chunk, shows each chunk once") {
  constexpr std::size_t chunk = metawarp::db::file_format::checksum_chunk_bytes;
  const auto path = std::filesystem::temp_directory_path() / "metawarp_read_chunked.bin";
  const std::vector<char> file = random_bytes(3 * chunk + 5000, 10);
  std::ofstream(path, std::ios::binary).write(file.data(), std::streamsize(file.size()));
  const int fd = ::open(path.c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  for (unsigned threads : {1u, 2u, 4u, 0u}) {
    for (std::size_t offset : {std::size_t(0), std::size_t(77)}) {
      for (std::size_t n : {std::size_t(0), std::size_t(5), chunk, 2 * chunk + 1, 3 * chunk}) {
        CAPTURE(threads, offset, n);
        std::vector<char> out(n + 1, 'x');
        std::mutex seen_mutex;
        std::vector<std::pair<std::size_t, std::size_t>> seen;
        const auto sum = read_chunked(fd, offset, out.data(), n, threads,
                                      [&](std::size_t begin, std::size_t end) {
                                        std::lock_guard lock(seen_mutex);
                                        seen.emplace_back(begin, end);
                                      });
        REQUIRE(sum.has_value());
        REQUIRE(*sum == chunked_checksum(file.data() + offset, n));
        REQUIRE(std::equal(out.begin(), out.begin() + long(n), file.begin() + long(offset)));
        REQUIRE(out[n] == 'x');
        std::sort(seen.begin(), seen.end());
        REQUIRE(seen.size() == checksum_chunk_count(n));
        for (std::size_t c = 0; c < seen.size(); ++c)
          REQUIRE(seen[c] == std::make_pair(c * chunk, std::min(n, (c + 1) * chunk)));
      }
    }
    std::vector<char> out(file.size());
    CHECK_FALSE(read_chunked(fd, 100, out.data(), file.size(), threads).has_value());
  }
  ::close(fd);
  std::filesystem::remove(path);
}
