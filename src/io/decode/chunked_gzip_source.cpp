// One ordinary gzip member (one DEFLATE stream, as `gzip` and most pipelines
// write FASTQ) decoded on several threads, with zlib's bytes and errors by
// construction (docs/decompression.md).
//
// The member's compressed bytes are cut into pieces (`chunk` bytes each, plus
// `overlap` bytes of the next piece to finish a block in). A pipeline
// (OrderedPipeline, every stage bounded):
//  - decode (parallel): piece 0 from the member's first block; piece i > 0
//    from the first bit in its range where a dynamic-Huffman block header is
//    valid and decoding on succeeds (deflate_chunk_decoder.hpp), into bytes
//    where those copied from the unknown preceding 32 KiB are marked, with
//    the list of the matches that copied them. Each piece decodes on to the
//    first dynamic block header at or after its range's end (or the end of
//    the stream).
//  - link (serial, in order): piece i is taken only where it started exactly
//    where piece i-1 stopped: both then stand at the same true block
//    boundary (the first dynamic block at or after the range's start), and
//    piece i's decode is the one zlib makes. The link replays the piece's
//    window copies with the 32 KiB before it (a few per FASTQ record, and
//    its last 32 KiB needs them all) and carries the window on.
//  - check (parallel): the piece's CRC-32.
//  - deliver (in order): bytes to the reader; CRC-32 and length combined.
// At the first piece not taken (no boundary found, a non-text byte, a
// decoding error, a mismatch of the boundaries) or at the end of the stream,
// the rest of the file goes to a serial decoder: zlib resumed at the last
// boundary taken with the window and CRC so far (inflate_resume_source.cpp),
// or, when nothing was delivered, the whole member to the serial gzip
// decoder. Either names any problem exactly as zlib does. After a clean end
// the trailer is checked and the next member is decoded as
// make_parallel_gzip_source decides.
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <vector>

#include "io/decode/chunk_queue_source.hpp"
#include "io/decode/decoders.hpp"
#include "io/decode/deflate_chunk_decoder.hpp"
#include "io/decode/deflate_stage_clock.hpp"
#include "io/decode/gzip_header.hpp"
#include "io/decode/member_inflater.hpp"
#include "metawarp/host/channel.hpp"
#include "metawarp/host/ordered_pipeline.hpp"
#include "metawarp/host/thread_group.hpp"

namespace metawarp::io {
namespace {

struct Piece {
  ByteBuffer compressed;  // `size` bytes of data, then padding (grown uninitialised)
  const unsigned char* data() const { return reinterpret_cast<const unsigned char*>(compressed.data()); }
  std::size_t size = 0;
  std::size_t nominal = 0;  // the piece's own range: [offset, offset + nominal)
  std::uint64_t offset = 0;  // in the file
  std::size_t index = 0;     // in the member
  DecodedBytes out;  // out.bytes: the piece's bytes, then delivered to the reader
  ChunkDecode decoded;
  enum class Link { good, cut, after } link = Link::after;  // cut: the first not taken
  std::uint64_t cut_bit = 0;           // cut: the file bit where the last good piece ended
  std::vector<unsigned char> window;   // good and cut: the 32 KiB before the piece
  std::uint64_t before = 0;            // good and cut: member bytes before the piece
  std::uint32_t crc = 0;
};

struct Stopped {};  // the reader went away

class ChunkedGzipSource final : public ChunkQueueSource {
 public:
  ChunkedGzipSource(CompressedInput input, unsigned threads, DecodeOptions::Gzip serial_decoder,
                    ChunkedGzipSettings settings)
      : ChunkQueueSource(2 * std::size_t{threads} + 2, input.raw().raw_bytes_read()),
        input_(std::move(input)),
        serial_decoder_(serial_decoder),
        threads_(threads),
        settings_(settings),
        slots_(settings.pieces_in_flight > 0 ? settings.pieces_in_flight : 2 * std::size_t{threads} + 2),
        spare_(2 * slots_ + 2) {
    const GzipHeader header = parse_gzip_header(input_.data(), input_.available());
    member_offset_ = input_.offset();
    header_bytes_.assign(reinterpret_cast<const char*>(input_.data()), header.length);
    input_.consume(header.length);
    link_end_bit_ = input_.offset() * 8;
    if (settings_.stats) settings_.stats->members.fetch_add(1, std::memory_order_relaxed);
    group_.on_stop([this] {
      chunks_.cancel();
      spare_.cancel();
    });
    group_.spawn([this] { run(); });
  }
  ~ChunkedGzipSource() override { group_.stop(); }
  ChunkedGzipSource(const ChunkedGzipSource&) = delete;
  ChunkedGzipSource& operator=(const ChunkedGzipSource&) = delete;

 private:
  void join_threads() override { group_.join(); }
  // The reader's buffers, for the decoding threads to reuse. Never waits:
  // after the last piece nobody takes them, and the reader must go on.
  void recycle(ByteBuffer&& buffer) override { spare_.try_push(std::move(buffer)); }

  void run() {
    host::OrderedPipeline<Piece> pipeline(slots_);
    pipeline.source([this](Piece& piece) { return cut_piece(piece); });
    pipeline.parallel(threads_, [this](Piece& piece, unsigned) {
      timed(&ChunkedGzipStats::decode_ns, [&] { decode(piece); });
    });
    pipeline.serial([this](Piece& piece) { timed(&ChunkedGzipStats::link_ns, [&] { link(piece); }); });
    pipeline.parallel(threads_, [this](Piece& piece, unsigned) {
      timed(&ChunkedGzipStats::check_ns, [&] { check(piece); });
    });
    try {
      pipeline.run([this](Piece& piece) { timed(&ChunkedGzipStats::deliver_ns, [&] { deliver(piece); }); });
    } catch (const Stopped&) {
      return;
    }
    // The input ended (or could not be read) after a good piece: zlib goes
    // on from where it stopped and meets the end or the error itself.
    if (!handing_back_) start_resume(link_end_bit_, link_window_, link_total_);
    skip_to_hand_back_point();
    std::string rest = std::move(handed_back_);
    rest.append(reinterpret_cast<const char*>(input_.data()), input_.available());
    CompressedInput input(input_.take_raw(), rest, "gzip", hand_back_offset_);
    DecodedChunk last;
    if (whole_member_) {
      last.rest = make_serial_gzip_source(std::move(input), serial_decoder_);
    } else {
      const unsigned threads = threads_;
      const DecodeOptions::Gzip serial = serial_decoder_;
      ChunkedGzipSettings next_settings = settings_;
      // A clean end: the next member may go in parallel too (a bounded number
      // of times: each member's decoder holds the next one's).
      if (!resume_.deflate_done || next_settings.members_left == 0) next_settings.chunked = false;
      if (next_settings.members_left > 0) --next_settings.members_left;
      last.rest = make_inflate_resume_source(std::move(input), std::move(resume_),
                                             [threads, serial, next_settings](CompressedInput next) {
                                               return make_parallel_gzip_source(std::move(next), threads,
                                                                                serial, next_settings);
                                             });
      if (settings_.stats && !resume_done_cleanly_) settings_.stats->fallbacks.fetch_add(1, std::memory_order_relaxed);
    }
    chunks_.push(std::move(last));
    chunks_.close();
  }

  // Runs `stage`, adding its thread CPU time to the stats' counter (when counted).
  template <class Stage>
  void timed(std::atomic<std::uint64_t> ChunkedGzipStats::*counter, Stage&& stage) {
    if (settings_.stats == nullptr) return stage();
    const std::uint64_t started = thread_cpu_ns();
    stage();
    (settings_.stats->*counter).fetch_add(thread_cpu_ns() - started, std::memory_order_relaxed);
  }

  // The pipeline's source: the next piece of compressed bytes.
  bool cut_piece(Piece& piece) {
    if (handing_back_.load(std::memory_order_relaxed)) return false;
    try {
      input_.has(settings_.chunk + settings_.overlap);
    } catch (const SourceError&) {
      // The serial decoder meets the read error again and names it.
    }
    raw_bytes_.store(input_.raw().raw_bytes_read(), std::memory_order_relaxed);
    if (input_.available() == 0) return false;
    piece.size = std::min(input_.available(), settings_.chunk + settings_.overlap);
    piece.nominal = std::min(input_.available(), settings_.chunk);
    piece.compressed.resize(piece.size + deflate_input_padding);
    std::memcpy(piece.compressed.data(), input_.data(), piece.size);
    std::memset(piece.compressed.data() + piece.size, 0, deflate_input_padding);
    piece.offset = input_.offset();
    piece.index = pieces_++;
    piece.link = Piece::Link::after;
    piece.decoded = {};
    input_.consume(piece.nominal);
    return true;
  }

  // Decode (parallel): bytes with unknown window bytes marked, from the
  // piece's first block boundary.
  void decode(Piece& piece) {
    piece.decoded = {};
    if (handing_back_.load(std::memory_order_relaxed)) return;
    const std::uint64_t stop = std::uint64_t{piece.nominal} * 8;
    // Fresh memory costs a page fault per page, more than decoding into it:
    // the decoding threads reuse the buffers the reader is done with. Room
    // for a typical piece of FASTQ at once (growing copies it).
    ByteBuffer spare;
    if (piece.out.bytes.capacity() == 0 &&
        spare_.pop_for(spare, std::chrono::seconds(0)) == host::Channel<ByteBuffer>::Got::item)
      piece.out.bytes = std::move(spare);
    piece.out.size = 0;
    piece.out.reserve(4 * settings_.chunk + (std::size_t{1} << 20));
    if (piece.index == 0) {
      piece.decoded = decode_deflate_chunk(piece.data(), piece.size, 0, stop, true, piece.out);
    } else {
      piece.decoded =
          find_and_decode_deflate_chunk(piece.data(), piece.size, 0, stop, stop, piece.out);
      if (settings_.stats) {
        // Counted as the search's, not the decode's.
        settings_.stats->search_ns.fetch_add(piece.decoded.search_ns, std::memory_order_relaxed);
        settings_.stats->decode_ns.fetch_sub(piece.decoded.search_ns, std::memory_order_relaxed);
      }
    }
  }

  // Link (serial, in order): is the piece the continuation of the one before?
  void link(Piece& piece) {
    if (!link_open_) {
      piece.link = Piece::Link::after;
      return;
    }
    bool taken = piece.decoded.end != ChunkDecode::End::refused;
    if (piece.index > 0)
      taken = taken && piece.offset * 8 + piece.decoded.start_bit == link_end_bit_ &&
              link_total_ >= deflate_window_size;
    piece.window = link_window_;
    piece.before = link_total_;
    if (!taken) {
      piece.link = Piece::Link::cut;
      piece.cut_bit = link_end_bit_;
      link_open_ = false;
      return;
    }
    piece.link = Piece::Link::good;
    resolve_window_copies(piece.out, piece.window.data());
    if (settings_.stats) {
      std::uint64_t bytes = 0;
      for (std::size_t i = 0; i < piece.out.copy_count; ++i) bytes += piece.out.copies[i].length;
      settings_.stats->window_copies.fetch_add(piece.out.copy_count, std::memory_order_relaxed);
      settings_.stats->window_copy_bytes.fetch_add(bytes, std::memory_order_relaxed);
    }
    piece.out.bytes.resize(piece.out.size);
    // The window after this piece: the old one's tail, then the piece's last bytes.
    const std::size_t n = piece.out.size;
    const std::size_t take = std::min(n, deflate_window_size);
    std::memmove(link_window_.data(), link_window_.data() + take, deflate_window_size - take);
    std::memcpy(link_window_.data() + (deflate_window_size - take), piece.out.bytes.data() + (n - take), take);
    link_total_ += n;
    link_end_bit_ = piece.offset * 8 + piece.decoded.end_bit;
    if (piece.decoded.end == ChunkDecode::End::final_block) link_open_ = false;
  }

  // Check (parallel): the bytes' CRC-32.
  void check(Piece& piece) {
    if (piece.link != Piece::Link::good) return;
    piece.crc = gzip_crc32(piece.out.bytes.data(), piece.out.bytes.size());
  }

  // Deliver (in order): bytes to the reader until the first piece not taken
  // or the end of the stream; from there on, compressed bytes kept for the
  // serial decoder.
  void deliver(Piece& piece) {
    if (!handing_back_.load(std::memory_order_relaxed)) {
      if (piece.link == Piece::Link::good) {
        ByteBuffer& bytes = piece.out.bytes;
        crc_ = static_cast<std::uint32_t>(crc32_combine(crc_, piece.crc, static_cast<z_off_t>(bytes.size())));
        length_ += bytes.size();
        if (settings_.stats) settings_.stats->parallel_bytes.fetch_add(bytes.size(), std::memory_order_relaxed);
        if (!bytes.empty()) {
          DecodedChunk chunk;
          chunk.bytes = std::move(bytes);
          bytes = {};
          if (!chunks_.push(std::move(chunk))) throw Stopped{};
        }
        if (piece.decoded.end == ChunkDecode::End::final_block) {
          // The trailer starts at the next whole byte.
          const std::uint64_t end_bit = piece.offset * 8 + piece.decoded.end_bit;
          start_resume((end_bit + 7) / 8 * 8, {}, 0);
          resume_.deflate_done = true;
          resume_done_cleanly_ = true;
        }
      } else if (piece.index == 0) {
        // Nothing delivered: the serial decoder takes the whole member.
        whole_member_ = true;
        handing_back_.store(true, std::memory_order_relaxed);
        hand_back_offset_ = member_offset_;
        handed_back_ = header_bytes_;
        if (settings_.stats) settings_.stats->fallbacks.fetch_add(1, std::memory_order_relaxed);
      } else {
        start_resume(piece.cut_bit, piece.window, piece.before);
      }
    }
    if (!handing_back_.load(std::memory_order_relaxed)) return;
    // This piece's own bytes from the hand-back point on.
    const std::uint64_t from = std::max(hand_back_offset_, piece.offset);
    const std::uint64_t to = piece.offset + piece.nominal;
    if (whole_member_ && piece.index == 0) {
      handed_back_.append(piece.compressed.data(), piece.nominal);
    } else if (from < to) {
      handed_back_.append(piece.compressed.data() + (from - piece.offset),
                          static_cast<std::size_t>(to - from));
    }
  }

  // The rest of the file, for the serial decoder, starts at
  // hand_back_offset_: the sink kept the bytes from there on of every piece
  // cut, and the unread input follows them. How far the source had cut when
  // the hand-back was decided depends on timing, and the last good piece may
  // have decoded into its overlap past every piece cut so far: the unread
  // input then still starts before the point and skips up to it. (Read from
  // there, zlib decoded from the wrong byte, or took the wrong bytes for the
  // trailer's CRC: the false errors of a valid file that struck about one
  // decode in 50 when the source was slow.)
  void skip_to_hand_back_point() {
    const std::uint64_t kept_end = hand_back_offset_ + handed_back_.size();
    // Only a source that stopped short leaves a gap, and then no piece's
    // bytes were kept; the gap lies in the last piece's overlap, which is
    // still in the input's buffer.
    if (kept_end > input_.offset() && handed_back_.empty() &&
        kept_end - input_.offset() <= input_.available())
      input_.consume(static_cast<std::size_t>(kept_end - input_.offset()));
    if (kept_end != input_.offset())
      throw SourceError("gzip decoding lost its place in the file (a bug: please report it)");
  }

  // Hands the member over to zlib at file bit `bit`, with the window (its
  // last min(before, 32 KiB) bytes count) and the CRC and length so far.
  void start_resume(std::uint64_t bit, const std::vector<unsigned char>& window, std::uint64_t before) {
    handing_back_.store(true, std::memory_order_relaxed);
    hand_back_offset_ = bit / 8;
    resume_.bit = static_cast<unsigned>(bit % 8);
    const std::size_t valid = static_cast<std::size_t>(std::min<std::uint64_t>(before, deflate_window_size));
    if (!window.empty())
      resume_.window.assign(reinterpret_cast<const char*>(window.data()) + (deflate_window_size - valid), valid);
    resume_.crc = crc_;
    resume_.length = length_;
  }

  CompressedInput input_;  // the pipeline's source only, then run() once it has ended
  const DecodeOptions::Gzip serial_decoder_;
  const unsigned threads_;
  const ChunkedGzipSettings settings_;
  const std::size_t slots_;
  std::uint64_t member_offset_ = 0;
  std::string header_bytes_;
  std::size_t pieces_ = 0;  // the source's
  // The link's state: where the last good piece ended, the 32 KiB before it.
  bool link_open_ = true;
  std::uint64_t link_end_bit_ = 0;
  std::vector<unsigned char> link_window_ = std::vector<unsigned char>(deflate_window_size, 0);
  std::uint64_t link_total_ = 0;
  // The sink's state.
  std::uint32_t crc_ = 0;
  std::uint64_t length_ = 0;
  std::atomic<bool> handing_back_{false};
  bool whole_member_ = false;
  bool resume_done_cleanly_ = false;
  std::uint64_t hand_back_offset_ = 0;
  std::string handed_back_;
  ResumePoint resume_;
  host::Channel<ByteBuffer> spare_;  // output buffers the reader is done with
  host::ThreadGroup group_;  // last: stopped and joined before the rest goes
};

}  // namespace

bool chunked_gzip_member_at(CompressedInput& input, const ChunkedGzipSettings& settings) {
  if (!settings.chunked) return false;
  const GzipHeader header = parse_gzip_header(input.data(), input.available());
  if (header.status != GzipHeader::Status::complete || header.member_size) return false;
  try {
    // Worth it only for a member of more than one piece.
    return input.has(header.length + settings.chunk + settings.overlap);
  } catch (const SourceError&) {
    return false;  // the serial decoder meets the read error again and names it
  }
}

std::unique_ptr<ByteSource> make_chunked_gzip_source(CompressedInput input, unsigned threads,
                                                     DecodeOptions::Gzip serial_decoder,
                                                     const ChunkedGzipSettings& settings) {
  return std::make_unique<ChunkedGzipSource>(std::move(input), threads, serial_decoder, settings);
}

}  // namespace metawarp::io
