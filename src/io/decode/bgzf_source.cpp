// BGZF decoded member by member on several threads, with the serial
// decoder's bytes and errors by construction. A reader thread splits off
// whole members using the size in each header's "BC" field; workers decode
// them (member_inflater.hpp) and check CRC-32 and length; the members come
// out in file order (OrderedPipeline) as chunks the reader of this source
// copies from. Only members that are beyond doubt go this way: at the first
// member that is anything else (no BC field, a header the parser does not
// vouch for, a size running past the end of the file, trailing data, zero
// padding, the end of the file) or that a worker cannot decode, that member
// and the rest of the file go to the serial decoder (zlib or ISA-L, both
// zlib's results), which names whatever is wrong exactly as on its own.
// Memory is bounded: at most 2 * threads + 2 members in flight and as many
// decoded chunks waiting for the reader.
#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "io/decode/chunk_queue_source.hpp"
#include "io/decode/decoders.hpp"
#include "io/decode/gzip_header.hpp"
#include "io/decode/member_inflater.hpp"
#include "metawarp/host/channel.hpp"
#include "metawarp/host/ordered_pipeline.hpp"
#include "metawarp/host/thread_group.hpp"

namespace metawarp::io {
namespace {

// BGZF members are at most 64 KiB compressed (the BC field is 16 bits) and
// hold at most 64 KiB of data; a member claiming more than this (its ISIZE)
// is left to the serial decoder rather than given a buffer that size.
constexpr std::size_t max_member_size = std::size_t{1} << 16;
constexpr std::uint32_t max_member_output = std::uint32_t{1} << 20;

struct Member {
  std::vector<unsigned char> compressed;  // header to trailer
  std::size_t header_length = 0;
  std::uint64_t offset = 0;  // in the file
  ByteBuffer output;
  bool decoded = false;  // false: the serial decoder's from here on
};

struct Stopped {};  // the reader went away

class ParallelGzipSource final : public ChunkQueueSource {
 public:
  ParallelGzipSource(CompressedInput input, unsigned threads, DecodeOptions::Gzip serial_decoder)
      : ChunkQueueSource(2 * std::size_t{threads} + 2, input.raw().raw_bytes_read()),
        input_(std::move(input)),
        serial_decoder_(serial_decoder),
        threads_(threads),
        slots_(2 * std::size_t{threads} + 2) {
    group_.on_stop([this] { chunks_.cancel(); });
    group_.spawn([this] { run(); });
  }
  ~ParallelGzipSource() override { group_.stop(); }
  ParallelGzipSource(const ParallelGzipSource&) = delete;
  ParallelGzipSource& operator=(const ParallelGzipSource&) = delete;

 private:
  void join_threads() override { group_.join(); }

  void run() {
    std::vector<MemberInflater> inflaters(threads_);
    host::OrderedPipeline<Member> pipeline(slots_);
    pipeline.source([this](Member& member) { return split(member); });
    pipeline.parallel(threads_, [&](Member& member, unsigned worker) { decode(member, inflaters[worker]); });
    try {
      pipeline.run([this](Member& member) { deliver(member); });
    } catch (const Stopped&) {
      return;
    }
    // The members from the first one not decoded here, then the unread rest.
    std::string rest = std::move(handed_back_);
    rest.append(reinterpret_cast<const char*>(input_.data()), input_.available());
    const std::uint64_t offset = handing_back_ ? handed_back_offset_ : input_.offset();
    DecodedChunk last;
    last.rest = make_serial_gzip_source(CompressedInput(input_.take_raw(), rest, "gzip", offset),
                                          serial_decoder_);
    chunks_.push(std::move(last));
    chunks_.close();
  }

  // The pipeline's source: the next whole member, false where the serial
  // decoder's part begins.
  bool split(Member& member) {
    if (handing_back_.load(std::memory_order_relaxed)) return false;
    std::size_t size = 0;
    try {
      size = bgzf_member_at(input_);
    } catch (const SourceError&) {
      return false;  // a read error: the serial decoder meets it again and names it
    }
    raw_bytes_.store(input_.raw().raw_bytes_read(), std::memory_order_relaxed);
    if (size == 0) return false;
    member.compressed.assign(input_.data(), input_.data() + size);
    member.header_length = parse_gzip_header(input_.data(), size).length;
    member.offset = input_.offset();
    member.decoded = false;
    input_.consume(size);
    return true;
  }

  // A worker: decodes the member, checks CRC-32 and length.
  void decode(Member& member, MemberInflater& inflater) {
    member.decoded = false;
    if (handing_back_.load(std::memory_order_relaxed)) return;
    const unsigned char* trailer = member.compressed.data() + member.compressed.size() - 8;
    const std::uint32_t length = little_endian_32(trailer + 4);
    if (length > max_member_output) return;
    member.output.resize(length);
    const unsigned char* body = member.compressed.data() + member.header_length;
    if (!inflater.inflate(body, static_cast<std::size_t>(trailer - body), member.output.data(), length)) return;
    member.decoded = gzip_crc32(member.output.data(), length) == little_endian_32(trailer);
  }

  // The sink, in file order: decoded bytes to the reader, until the first
  // member not decoded; from it on, members are kept for the serial decoder.
  void deliver(Member& member) {
    if (!member.decoded || handing_back_.load(std::memory_order_relaxed)) {
      if (!handing_back_.load(std::memory_order_relaxed)) handed_back_offset_ = member.offset;
      handing_back_.store(true, std::memory_order_relaxed);
      handed_back_.append(reinterpret_cast<const char*>(member.compressed.data()), member.compressed.size());
      return;
    }
    if (member.output.empty()) return;
    DecodedChunk chunk;
    chunk.bytes = std::move(member.output);
    member.output = {};
    if (!chunks_.push(std::move(chunk))) throw Stopped{};
  }

  CompressedInput input_;  // the pipeline's source only, then run() once it has ended
  const DecodeOptions::Gzip serial_decoder_;
  const unsigned threads_;
  const std::size_t slots_;
  std::atomic<bool> handing_back_{false};
  std::string handed_back_;  // the sink's
  std::uint64_t handed_back_offset_ = 0;
  host::ThreadGroup group_;  // last: stopped and joined before the rest goes
};

}  // namespace

std::size_t bgzf_member_at(CompressedInput& input) {
  input.has(max_member_size);  // as much as there is, up to one whole member
  const GzipHeader header = parse_gzip_header(input.data(), input.available());
  if (header.status != GzipHeader::Status::complete || !header.member_size) return 0;
  const std::size_t size = *header.member_size;
  if (size < header.length + 8 || size > input.available()) return 0;
  return size;
}

std::unique_ptr<ByteSource> make_bgzf_source(CompressedInput input, unsigned threads,
                                             DecodeOptions::Gzip serial_decoder) {
  return std::make_unique<ParallelGzipSource>(std::move(input), threads, serial_decoder);
}

}  // namespace metawarp::io
