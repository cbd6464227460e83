#pragma once
// DEFLATE decoded from the middle of a stream whose preceding 32 KiB are not
// known yet: the building block of single-member parallel gzip decoding
// (decode/chunked_gzip_source.cpp).
//
// The output is bytes, as the data will be read: every literal is text (see
// below), so a byte with the high bit set cannot be one, and such a byte
// (window_byte) stands for "a byte of the unknown window before the piece".
// Only a match can bring those in: one that reaches before the piece, or one
// that copies bytes that are unknown themselves. Those matches are kept
// (WindowCopy, a few per FASTQ record: a header prefix copied from record to
// record leads back to the window) and replayed in order once the window is
// known (resolve_window_copies), which makes every byte the one zlib decodes.
// Where ordinary decoders write 16-bit symbols and translate all of them
// afterwards, this writes each byte once and touches only the copied ones
// again.
//
// The decoder is at least as strict as zlib (every stream zlib refuses, it
// refuses) and stricter where it helps find false starts: every literal must
// be a byte that FASTQ/FASTA text holds (tab, CR, LF, ' ' to '~'). Refusing
// is always safe: the caller hands that part to the serial decoder, which
// gives zlib's bytes and names the problem.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "io/decode/byte_buffer.hpp"

namespace metawarp::io {

constexpr std::size_t deflate_window_size = 32768;
// What an unknown window byte decodes to until resolved (no text byte has the high bit).
constexpr unsigned char window_byte = 0x80;
// Bytes after the data that the decoder may read (they must be readable;
// their value does not matter): it reads 8 bytes at a time.
constexpr std::size_t deflate_input_padding = 32;

// A match that brought unknown window bytes into a piece: `length` bytes at
// output offset `to` copied from `distance` bytes back (before offset 0: the
// window, whose last byte is 1 back from offset 0).
struct WindowCopy {
  std::uint32_t to;
  std::uint16_t distance;
  std::uint16_t length;
};

// A piece's decoded bytes (window bytes still unknown) and the copies that
// resolve them. `bytes`'s capacity is working room: its first `size` bytes
// are the output, the rest scratch (the decoder writes up to 16 bytes past a
// match); bytes.size() is not kept up to date while decoding.
struct DecodedBytes {
  ByteBuffer bytes;
  std::size_t size = 0;
  // The copies: the first copy_count of copy_capacity (room to write the
  // next one ahead; grown uninitialised, as zeroing would cost a pass).
  std::unique_ptr<WindowCopy[]> copies;
  std::size_t copy_count = 0, copy_capacity = 0;
  std::size_t limit = std::size_t{256} << 20;  // a piece decoding to more is refused (the serial decoder takes it)
  // Room for at least `count` bytes, keeping the first `size`; false past the limit.
  bool reserve(std::size_t count);
  // Room for at least `count` copies, keeping the first copy_count.
  void reserve_copies(std::size_t count);
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

// Decodes blocks from bit `start_bit` of data[0, size) into `out` (emptied
// first) until a dynamic-Huffman block header at bit >= stop_bit, or the end
// of the final block. `at_stream_start`: the window is empty, so a distance
// reaching before the chunk is an error (as in zlib) instead of window bytes.
ChunkDecode decode_deflate_chunk(const unsigned char* data, std::size_t size, std::uint64_t start_bit,
                                 std::uint64_t stop_bit, bool at_stream_start, DecodedBytes& out);

// For a chunk that starts somewhere inside a stream: the first bit offset in
// [search_from, search_to) where a dynamic-Huffman block header is valid (as
// zlib would take it) and decoding from it to stop_bit succeeds; `out` holds
// that decode. refused when there is none.
ChunkDecode find_and_decode_deflate_chunk(const unsigned char* data, std::size_t size,
                                          std::uint64_t search_from, std::uint64_t search_to,
                                          std::uint64_t stop_bit, DecodedBytes& out);

// Replays out.copies in order with `window` (deflate_window_size bytes, the
// oldest first) as the bytes before the piece: afterwards out.bytes[0, size)
// are the piece's true bytes.
void resolve_window_copies(DecodedBytes& out, const unsigned char* window);

}  // namespace metawarp::io
