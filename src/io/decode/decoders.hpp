#pragma once
// The decoders behind detect_compression (open_decoder.cpp), one file each.
// Each takes the compressed bytes after the format was recognised (the
// prefix already read from `raw` included).
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "io/decode/byte_source.hpp"
#include "io/decode/compressed_input.hpp"

namespace metawarp::io {

// gzip through zlib: the reference the others are tested against.
std::unique_ptr<ByteSource> make_zlib_gzip_source(CompressedInput input);
// gzip through Intel ISA-L's igzip; null when metawarp was built without it.
std::unique_ptr<ByteSource> make_isal_gzip_source(CompressedInput input);
bool isal_available();
// The serial gzip decoder `decoder` names (ISA-L falls back to zlib where
// metawarp was built without it).
std::unique_ptr<ByteSource> make_serial_gzip_source(CompressedInput input, DecodeOptions::Gzip decoder);

// How single-member gzip files are decoded on several threads
// (chunked_gzip_source.cpp); the defaults are what the application uses,
// tests and benchmarks set smaller pieces or read the counters.
struct ChunkedGzipStats {
  std::atomic<std::uint64_t> members{0};         // members that took the chunked path
  std::atomic<std::uint64_t> parallel_bytes{0};  // bytes it decoded
  std::atomic<std::uint64_t> fallbacks{0};       // members handed to a serial decoder before their end
  // Thread CPU nanoseconds per stage (tools/bench_inflate): the block
  // boundary search, decoding, the serial link (window bytes resolved
  // there), the CRC-32, delivery.
  std::atomic<std::uint64_t> search_ns{0}, decode_ns{0}, link_ns{0}, check_ns{0}, deliver_ns{0};
  // Matches replayed once the window was known, and the bytes they wrote.
  std::atomic<std::uint64_t> window_copies{0}, window_copy_bytes{0};
};
struct ChunkedGzipSettings {
  bool chunked = true;                           // false: never (serial or BGZF only)
  // Fewer threads: the serial decoder. Measured on the H100 host (16 cores,
  // docs/benchmarks.md, before the byte-output decoder): a gzip -6 FASTQ
  // member decodes at 455 MB/s on 2 threads, 990 on 4, 1,752 on 8, where one
  // ISA-L core does 686; the pieces still cost about 3x ISA-L's CPU per byte
  // (docs/decompression.md), so 2 threads stay below one ISA-L core.
  unsigned min_threads = 4;
  // Compressed bytes per piece: the block search and the window copies
  // replayed in the serial link cost per piece, so 2 MiB pieces cost about
  // 10 % less CPU per byte than 1 MiB ones (docs/decompression.md).
  std::size_t chunk = std::size_t{2} << 20;
  std::size_t overlap = std::size_t{512} << 10;  // bytes of the next piece a piece may finish a block in
  unsigned members_left = 64;                    // later members that may take the path too
  // At most this many pieces at once (0: 2 * threads + 2), each up to
  // chunk + overlap compressed bytes and their decoded bytes: the memory
  // bound. Few pieces in flight make the source wait for each delivery.
  std::size_t pieces_in_flight = 0;
  ChunkedGzipStats* stats = nullptr;
};

// The gzip decoder for `threads` threads (open_decoder.cpp, where every
// decoder is chosen): BGZF decoded member by member (make_bgzf_source); a
// big ordinary member (what `gzip` writes) decoded in pieces on several
// threads (make_chunked_gzip_source); anything else, or threads <= 1: the
// serial decoder `serial_decoder` names from the start.
std::unique_ptr<ByteSource> make_parallel_gzip_source(CompressedInput input, unsigned threads,
                                                      DecodeOptions::Gzip serial_decoder,
                                                      const ChunkedGzipSettings& settings = {});

// The size of the whole BGZF member at the read position, or 0 when what is
// there is not one the parallel path can take (the serial decoder's part).
std::size_t bgzf_member_at(CompressedInput& input);
// BGZF decoded member by member on `threads` threads (bgzf_source.cpp), the
// rest of the file from the first member that cannot be by the serial
// decoder `serial_decoder` names; for an input bgzf_member_at took.
std::unique_ptr<ByteSource> make_bgzf_source(CompressedInput input, unsigned threads,
                                             DecodeOptions::Gzip serial_decoder);

// True when the member at the read position is an ordinary (non-BGZF) one
// with a valid header and more than one piece of data after it. `input`'s
// buffer must hold a piece and its overlap twice over.
bool chunked_gzip_member_at(CompressedInput& input, const ChunkedGzipSettings& settings);
// One big ordinary gzip member decoded on `threads` threads at once by
// starting at DEFLATE block boundaries found by search
// (chunked_gzip_source.cpp); for a member chunked_gzip_member_at took.
// Later members go the way make_parallel_gzip_source sends them.
std::unique_ptr<ByteSource> make_chunked_gzip_source(CompressedInput input, unsigned threads,
                                                     DecodeOptions::Gzip serial_decoder,
                                                     const ChunkedGzipSettings& settings);

// Where a member's decoding is taken over by zlib (inflate_resume_source.cpp):
// `input` starts at the byte holding bit `bit` of a DEFLATE block boundary
// (bits below `bit` belong to the block before), or, with `deflate_done`, at
// the member's trailer.
struct ResumePoint {
  unsigned bit = 0;
  bool deflate_done = false;
  std::string window;        // the last (up to) 32 KiB decoded before the boundary
  std::uint32_t crc = 0;     // CRC-32 of the member's bytes before the boundary
  std::uint64_t length = 0;  // how many there were
};
// Decodes the file after a member's trailer.
using NextMemberDecoder = std::function<std::unique_ptr<ByteSource>(CompressedInput)>;
std::unique_ptr<ByteSource> make_inflate_resume_source(CompressedInput input, ResumePoint point,
                                                       NextMemberDecoder next);

std::unique_ptr<ByteSource> make_bzip2_source(CompressedInput input);
std::unique_ptr<ByteSource> make_zstd_source(CompressedInput input);
// Runs `source` on a thread of its own, `chunk` bytes at a time, at most
// `chunks` of them decoded ahead of the reader.
std::unique_ptr<ByteSource> make_read_ahead_source(std::unique_ptr<ByteSource> source,
                                                   std::size_t chunk, std::size_t chunks);

}  // namespace metawarp::io
