#pragma once
// DEFLATE decoded from the middle of a stream whose preceding 32 KiB are not
// known yet: the building block of single-member parallel gzip decoding
// (inflate_chunked_source.cpp). The output is 16-bit symbols: a byte value
// (< 256), or a marker, 256 + i, meaning "byte i of the 32 KiB window that
// precedes the chunk" (i = 0 the oldest), resolved once the chunk before is
// decoded (resolve_symbols).
//
// The decoder is at least as strict as zlib (every stream zlib refuses, it
// refuses) and stricter where it helps find false starts: every literal must
// be a byte that FASTQ/FASTA text holds (tab, CR, LF, ' ' to '~'). Refusing
// is always safe: the caller hands that part to the serial decoder, which
// gives zlib's bytes and names the problem.
#include <cstddef>
#include <cstdint>
#include <memory>

namespace metawarp::io {

constexpr std::size_t deflate_window_size = 32768;
constexpr std::uint16_t deflate_first_marker = 256;
// Bytes after the data that the decoder may read (they must be readable;
// their value does not matter): it reads 8 bytes at a time.
constexpr std::size_t deflate_input_padding = 32;

// A growable array of symbols with a hard limit (a chunk that decodes to more
// is refused: the serial decoder takes it).
class SymbolBuffer {
 public:
  explicit SymbolBuffer(std::size_t limit = std::size_t{256} << 20) : limit_(limit) {}
  std::uint16_t* data() { return data_.get(); }
  const std::uint16_t* data() const { return data_.get(); }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return capacity_; }
  void set_size(std::size_t size) { size_ = size; }
  // Room for at least `count` symbols (keeping the first size()); false past the limit.
  bool reserve(std::size_t count);

 private:
  std::unique_ptr<std::uint16_t[]> data_;
  std::size_t size_ = 0, capacity_ = 0, limit_;
};

struct ChunkDecode {
  enum class End {
    boundary,     // stopped before a dynamic-Huffman block header at or after stop_bit
    final_block,  // the stream's last block ended
    refused,      // anything else: a decoding error, a non-text byte, the data ran out
  };
  End end = End::refused;
  std::uint64_t start_bit = 0, end_bit = 0;  // bit offsets from `data`
  std::uint64_t search_ns = 0;  // thread CPU time spent finding start_bit (false starts included)
};

// Decodes blocks from bit `start_bit` of data[0, size) into `out` (cleared
// first) until a dynamic-Huffman block header at bit >= stop_bit, or the end
// of the final block. `at_stream_start`: the window is empty, so a distance
// reaching before the chunk is an error (as in zlib) instead of a marker.
ChunkDecode decode_deflate_chunk(const unsigned char* data, std::size_t size, std::uint64_t start_bit,
                                 std::uint64_t stop_bit, bool at_stream_start, SymbolBuffer& out);

// For a chunk that starts somewhere inside a stream: the first bit offset in
// [search_from, search_to) where a dynamic-Huffman block header is valid (as
// zlib would take it) and decoding from it to stop_bit succeeds; `out` holds
// that decode. refused when there is none.
ChunkDecode find_and_decode_deflate_chunk(const unsigned char* data, std::size_t size,
                                          std::uint64_t search_from, std::uint64_t search_to,
                                          std::uint64_t stop_bit, SymbolBuffer& out);

// Symbols to bytes: markers from `window` (deflate_window_size bytes, the
// oldest first). `out` may not overlap `symbols`.
void resolve_symbols(const std::uint16_t* symbols, std::size_t count, const unsigned char* window, char* out);

}  // namespace metawarp::io
