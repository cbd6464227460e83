#pragma once
// A fast, non-cryptographic 64-bit checksum for database sections. It detects
// accidental corruption (flipped bits, truncation, stray writes), not tampering.
#include <cstddef>
#include <cstdint>
#include <span>

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

// A section's checksum from format version 2 on (docs/database-format.md):
// checksum64 of the sequence of checksum64s (u64, little-endian) of its
// consecutive chunks of file_format::checksum_chunk_bytes (the last one
// shorter; an empty section has none). Chunks are summed independently, so
// the readers and writers of a section sum it on all their threads.
std::size_t checksum_chunk_count(std::size_t size);
// The section checksum from its chunks' checksums, in order.
std::uint64_t combine_chunk_checksums(std::span<const std::uint64_t> chunk_sums);
// chunked_checksum of data, computed on up to `threads` threads (0: all cores).
std::uint64_t chunked_checksum(const void* data, std::size_t size, unsigned threads = 1);

// A section's checksum as format version `version` defines it: checksum64
// (version 1) or chunked_checksum (version 2 on). For tools and tests that
// edit files; load and save sum the chunks as they read or write them.
std::uint64_t section_checksum(std::uint32_t version, const void* data, std::size_t size);

}  // namespace metawarp::db
