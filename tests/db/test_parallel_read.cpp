// Checksum64 in pieces equals checksum64 at once, and read_and_checksum reads
// exactly the bytes at its offset (any size, chunk boundaries anywhere) and
// says when the file ends first.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "catch.hpp"
#include "db/checksum.hpp"
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
