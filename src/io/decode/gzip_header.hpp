#pragma once
// A gzip member's header (RFC 1952) read from bytes in memory: how long it is,
// and the member's total size where a BGZF extra field (subfield "BC") gives
// it. The fast decoders use it; anything it cannot vouch for (an unknown
// method or flag, a header checksum that does not match, bytes that end
// first) they leave to zlib, whose messages are the reference.
#include <cstddef>
#include <cstdint>
#include <optional>

namespace metawarp::io {

struct GzipHeader {
  enum class Status { complete, incomplete, invalid };
  Status status = Status::incomplete;
  std::size_t length = 0;                     // of the header, when complete
  std::optional<std::uint32_t> member_size;   // BGZF: the whole member, header to trailer
};

GzipHeader parse_gzip_header(const unsigned char* bytes, std::size_t size);

// The 8-byte trailer: CRC-32 and length (mod 2^32) of the member's data.
inline std::uint32_t little_endian_32(const unsigned char* p) {
  return std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 |
         std::uint32_t{p[3]} << 24;
}
inline std::uint32_t little_endian_16(const unsigned char* p) {
  return std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8;
}

}  // namespace metawarp::io
