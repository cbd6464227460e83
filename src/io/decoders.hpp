#pragma once
// The decoders behind detect_compression, one file each. Each takes the
// compressed bytes after the format was recognised (the prefix already read
// from `raw` included).
#include <memory>

#include "io/byte_source.hpp"
#include "io/compressed_input.hpp"

namespace metawarp::io {

// gzip through zlib: the reference the others are tested against.
std::unique_ptr<ByteSource> make_zlib_gzip_source(CompressedInput input);
// gzip through Intel ISA-L's igzip; null when metawarp was built without it.
std::unique_ptr<ByteSource> make_isal_gzip_source(CompressedInput input);
bool isal_available();
// The serial gzip decoder `decoder` names (ISA-L falls back to zlib where
// metawarp was built without it).
std::unique_ptr<ByteSource> make_serial_gzip_source(CompressedInput input, DecodeOptions::Gzip decoder);
// BGZF decoded member by member on `threads` threads (parallel_gzip_source.cpp),
// the rest of the file from the first member that cannot be by the serial
// decoder `serial_decoder` names; other gzip files, or threads <= 1: that
// serial decoder from the start.
std::unique_ptr<ByteSource> make_parallel_gzip_source(CompressedInput input, unsigned threads,
                                                      DecodeOptions::Gzip serial_decoder);
std::unique_ptr<ByteSource> make_bzip2_source(CompressedInput input);
std::unique_ptr<ByteSource> make_zstd_source(CompressedInput input);
// Runs `source` on a thread of its own, `chunk` bytes at a time, at most
// `chunks` of them decoded ahead of the reader.
std::unique_ptr<ByteSource> make_read_ahead_source(std::unique_ptr<ByteSource> source,
                                                   std::size_t chunk, std::size_t chunks);

}  // namespace metawarp::io
