#include "io/decode/gzip_header.hpp"

#include <zlib.h>

#include <cstring>

namespace metawarp::io {
namespace {

constexpr unsigned char flag_header_crc = 0x02, flag_extra = 0x04, flag_name = 0x08,
                        flag_comment = 0x10, flags_reserved = 0xe0;

// The BGZF member size from the extra field's subfields, if one is "BC".
std::optional<std::uint32_t> bgzf_size(const unsigned char* extra, std::size_t length) {
  std::size_t at = 0;
  while (at + 4 <= length) {
    const std::size_t field = little_endian_16(extra + at + 2);
    if (at + 4 + field > length) return std::nullopt;
    if (extra[at] == 'B' && extra[at + 1] == 'C' && field == 2)
      return little_endian_16(extra + at + 4) + 1;
    at += 4 + field;
  }
  return std::nullopt;
}

}  // namespace

GzipHeader parse_gzip_header(const unsigned char* bytes, std::size_t size) {
  GzipHeader header;
  const auto incomplete = [&] { header.status = GzipHeader::Status::incomplete; return header; };
  if (size < 10) return incomplete();
  if (bytes[0] != 0x1f || bytes[1] != 0x8b || bytes[2] != 8 || (bytes[3] & flags_reserved)) {
    header.status = GzipHeader::Status::invalid;
    return header;
  }
  const unsigned char flags = bytes[3];
  std::size_t at = 10;
  if (flags & flag_extra) {
    if (size < at + 2) return incomplete();
    const std::size_t length = little_endian_16(bytes + at);
    if (size < at + 2 + length) return incomplete();
    header.member_size = bgzf_size(bytes + at + 2, length);
    at += 2 + length;
  }
  for (const unsigned char flag : {flag_name, flag_comment}) {
    if (!(flags & flag)) continue;
    const void* zero = std::memchr(bytes + at, 0, size - at);
    if (zero == nullptr) return incomplete();
    at = static_cast<std::size_t>(static_cast<const unsigned char*>(zero) - bytes) + 1;
  }
  if (flags & flag_header_crc) {
    if (size < at + 2) return incomplete();
    const auto crc = crc32(0, bytes, static_cast<uInt>(at));
    if ((crc & 0xffff) != little_endian_16(bytes + at)) {
      header.status = GzipHeader::Status::invalid;
      return header;
    }
    at += 2;
  }
  header.status = GzipHeader::Status::complete;
  header.length = at;
  return header;
}

}  // namespace metawarp::io
