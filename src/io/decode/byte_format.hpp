#pragma once
// What an input's first bytes say it is: plain bytes or a compressed stream.
// Known from the content, never from the file name, so a misnamed file or a
// compressed stream on stdin both work. detect_compression() picks the
// decoder by it (open_decoder.cpp); the cutter and the build's size
// estimate ask it without building a decoder.
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace metawarp::io {

enum class ByteFormat : std::uint8_t {
  plain,
  gzip,   // 1f 8b
  bzip2,  // "BZh" and a digit 1-9
  zstd,   // 28 b5 2f fd
};

// The bytes detect_format() looks at (fewer where the input is shorter).
inline constexpr std::size_t format_prefix_bytes = 4;

// `prefix`: the first format_prefix_bytes bytes of the input.
ByteFormat detect_format(std::string_view prefix);

}  // namespace metawarp::io
