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

}  // namespace metawarp::db
