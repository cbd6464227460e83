// checksum64 against the algorithm as written in docs/database-format.md,
// re-implemented here byte by byte, and its sensitivity to single-bit flips.
#include <random>
#include <vector>

#include "catch.hpp"
#include "db/checksum.hpp"

namespace {

std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

std::uint64_t documented_checksum(const std::vector<unsigned char>& d) {
  const std::uint64_t P1 = 0x9E3779B185EBCA87ull, P2 = 0xC2B2AE3D27D4EB4Full;
  auto step = [&](std::uint64_t h, std::uint64_t w) { return rotl(h + w * P2, 31) * P1; };
  auto word = [&](std::size_t at, std::size_t n) {  // n bytes little-endian, zero-extended
    std::uint64_t w = 0;
    for (std::size_t j = 0; j < n; ++j) w |= std::uint64_t(d[at + j]) << (8 * j);
    return w;
  };
  std::uint64_t lane[4] = {P1 + P2, P2, 0, 0 - P1};
  std::size_t i = 0;
  for (; i + 32 <= d.size(); i += 32)
    for (int j = 0; j < 4; ++j) lane[j] = step(lane[j], word(i + 8 * j, 8));
  std::uint64_t h = rotl(lane[0], 1) + rotl(lane[1], 7) + rotl(lane[2], 12) + rotl(lane[3], 18);
  for (; i + 8 <= d.size(); i += 8) h = step(h, word(i, 8));
  if (i < d.size()) h = step(h, word(i, d.size() - i));
  h ^= std::uint64_t(d.size()) * P1;
  h ^= h >> 33;  // fmix64
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

}  // namespace

TEST_CASE("checksum64 follows the documented algorithm and sees every bit flip") {
  std::mt19937_64 rng(8);
  for (std::size_t n = 0; n < 200; ++n) {
    std::vector<unsigned char> data(n);
    for (auto& b : data) b = static_cast<unsigned char>(rng());
    const std::uint64_t sum = metawarp::db::checksum64(data.data(), data.size());
    REQUIRE(sum == documented_checksum(data));
    for (std::size_t bit = 0; bit < 8 * n; bit += 5) {
      data[bit / 8] ^= static_cast<unsigned char>(1u << (bit % 8));
      REQUIRE(metawarp::db::checksum64(data.data(), data.size()) != sum);
      data[bit / 8] ^= static_cast<unsigned char>(1u << (bit % 8));
    }
  }
  // Appending a zero byte changes the sum (the length is mixed in).
  const std::vector<unsigned char> a(16, 0), b(17, 0);
  CHECK(metawarp::db::checksum64(a.data(), a.size()) != metawarp::db::checksum64(b.data(), b.size()));
}
