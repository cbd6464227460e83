#include "db/checksum.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include <vector>

#include "db/file_format.hpp"
#include "metawarp/hash/fmix.hpp"
#include "metawarp/host/parallel_for.hpp"

namespace metawarp::db {
namespace {

constexpr std::uint64_t prime1 = 0x9E3779B185EBCA87ull;
constexpr std::uint64_t prime2 = 0xC2B2AE3D27D4EB4Full;

std::uint64_t load_word(const unsigned char* p) {
  std::uint64_t w;
  std::memcpy(&w, p, 8);
  if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
  return w;
}

std::uint64_t lane_step(std::uint64_t lane, std::uint64_t word) {
  return std::rotl(lane + word * prime2, 31) * prime1;
}

// Runs the four lanes over the whole 32-byte blocks of [p, p + n) (in
// registers); returns the bytes consumed.
std::size_t step_blocks(std::uint64_t (&lanes)[4], const unsigned char* p, std::size_t n) {
  std::uint64_t l0 = lanes[0], l1 = lanes[1], l2 = lanes[2], l3 = lanes[3];
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    l0 = lane_step(l0, load_word(p + i));
    l1 = lane_step(l1, load_word(p + i + 8));
    l2 = lane_step(l2, load_word(p + i + 16));
    l3 = lane_step(l3, load_word(p + i + 24));
  }
  lanes[0] = l0, lanes[1] = l1, lanes[2] = l2, lanes[3] = l3;
  return i;
}

}  // namespace

Checksum64::Checksum64() : lanes_{prime1 + prime2, prime2, 0, 0 - prime1} {}

void Checksum64::add(const void* data, std::size_t n) {
  step_blocks(lanes_, static_cast<const unsigned char*>(data), n);
  size_ += n;
}

std::uint64_t Checksum64::finish(const void* rest, std::size_t n) const {
  const auto* p = static_cast<const unsigned char*>(rest);
  std::uint64_t lanes[4] = {lanes_[0], lanes_[1], lanes_[2], lanes_[3]};
  std::size_t i = step_blocks(lanes, p, n);
  std::uint64_t h = std::rotl(lanes[0], 1) + std::rotl(lanes[1], 7) + std::rotl(lanes[2], 12) +
                    std::rotl(lanes[3], 18);
  for (; i + 8 <= n; i += 8) h = lane_step(h, load_word(p + i));
  if (i < n) {
    std::uint64_t tail = 0;
    for (std::size_t j = 0; i + j < n; ++j) tail |= std::uint64_t(p[i + j]) << (8 * j);
    h = lane_step(h, tail);
  }
  return hash::fmix64(h ^ ((size_ + n) * prime1));
}

std::uint64_t checksum64(const void* data, std::size_t size) {
  return Checksum64().finish(data, size);
}

std::size_t checksum_chunk_count(std::size_t size) {
  return (size + file_format::checksum_chunk_bytes - 1) / file_format::checksum_chunk_bytes;
}

std::uint64_t combine_chunk_checksums(std::span<const std::uint64_t> chunk_sums) {
  return checksum64(chunk_sums.data(), chunk_sums.size_bytes());
}

std::uint64_t chunked_checksum(const void* data, std::size_t size, unsigned threads) {
  constexpr std::size_t chunk = file_format::checksum_chunk_bytes;
  const auto* bytes = static_cast<const unsigned char*>(data);
  std::vector<std::uint64_t> sums(checksum_chunk_count(size));
  const std::size_t parts = threads == 0 ? host::parts_for(sums.size(), 1)
                                         : std::min<std::size_t>(threads, sums.size());
  host::parallel_ranges(sums.size(), parts, [&](std::size_t begin, std::size_t end) {
    for (std::size_t c = begin; c < end; ++c)
      sums[c] = checksum64(bytes + c * chunk, std::min(chunk, size - c * chunk));
  });
  return combine_chunk_checksums(sums);
}

std::uint64_t section_checksum(std::uint32_t version, const void* data, std::size_t size) {
  return version >= file_format::first_chunked_checksum_version ? chunked_checksum(data, size)
                                                                  : checksum64(data, size);
}

}  // namespace metawarp::db
