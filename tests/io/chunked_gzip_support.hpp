#pragma once
// Decoding through the single-member parallel gzip path (small pieces, so
// small files have many) and through zlib alone, for the comparisons of
// test_chunked_gzip.cpp and test_chunked_gzip_real.cpp.
#include <optional>
#include <string>

#include "io/decode/byte_source.hpp"
#include "io/decode/decoders.hpp"
#include "test_sources.hpp"

namespace metawarp::io::test {

struct Decoded {
  std::string bytes;  // before the error, if any
  std::optional<std::string> error;
  bool operator==(const Decoded&) const = default;
};

template <class Open>
Decoded decode_with(Open open, std::size_t read_size) {
  Decoded out;
  try {
    std::unique_ptr<ByteSource> source = open();
    std::string buffer(read_size, '\0');
    while (const std::size_t n = source->read(buffer.data(), buffer.size())) out.bytes.append(buffer.data(), n);
  } catch (const SourceError& error) {
    out.error = error.what();
  }
  return out;
}

inline Decoded decode_zlib(const std::string& file) {
  DecodeOptions options;
  options.gzip = DecodeOptions::Gzip::zlib;
  return decode_with([&] { return detect_compression(std::make_unique<MemorySource>(file), options); }, 65536);
}

inline ChunkedGzipSettings small_pieces(ChunkedGzipStats* stats, std::size_t chunk = 64 << 10) {
  ChunkedGzipSettings settings;
  settings.chunk = chunk;
  settings.overlap = 64 << 10;
  settings.stats = stats;
  settings.min_threads = 2;  // the tests run the path on 2 and 3 threads too
  return settings;
}

// The gzip path for `threads` threads with `settings`; the file's bytes come
// `source_read` at a time and are read `read_size` at a time.
inline Decoded decode_chunked(const std::string& file, unsigned threads, const ChunkedGzipSettings& settings,
                              DecodeOptions::Gzip serial = DecodeOptions::Gzip::zlib,
                              std::size_t read_size = 65536, std::size_t source_read = std::string::npos) {
  return decode_with(
      [&] {
        return make_parallel_gzip_source(
            CompressedInput(std::make_unique<MemorySource>(file, source_read), "", "gzip"), threads, serial,
            settings);
      },
      read_size);
}

}  // namespace metawarp::io::test
