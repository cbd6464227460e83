#pragma once
// A fast, non-cryptographic 64-bit checksum for database sections. It detects
// accidental corruption (flipped bits, truncation, stray writes), not tampering.
#include <cstddef>
#include <cstdint>

namespace metawarp::db {

// Four independent multiply-rotate lanes over 8-byte little-endian words (so
// the CPU can overlap them), tail bytes packed into a final word, the length
// mixed in, and a murmur-style finalizer. Part of the file format.
std::uint64_t checksum64(const void* data, std::size_t size);

// checksum64 over data that arrives in pieces (e.g. while a large section is
// still being read): add() whole 32-byte blocks, then finish() with the rest.
// add(a, n) + finish(b, m) == checksum64 of the n + m bytes a, b.
class Checksum64 {
 public:
  Checksum64();
  // n must be a multiple of 32.
  void add(const void* data, std::size_t n);
  std::uint64_t finish(const void* rest, std::size_t n) const;

 private:
  std::uint64_t lanes_[4];
  std::uint64_t size_ = 0;
};

}  // namespace metawarp::db
