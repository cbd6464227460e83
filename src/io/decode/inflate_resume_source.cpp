// The rest of a gzip member from a DEFLATE block boundary in its middle, by
// zlib, for the single-member parallel decoder (decode/chunked_gzip_source.cpp):
// raw inflate primed with the bits of the boundary's first byte and the
// 32 KiB already decoded as its dictionary decodes exactly what zlib decodes
// from the member's start past that point, and names every problem with
// zlib's message. The trailer is then checked against the CRC-32 and length
// of the whole member (what was decoded before the boundary included), as
// zlib's gzip wrapper does, and the rest of the file goes to `next`.
#include <zlib.h>

#include <algorithm>
#include <climits>

#include "io/decode/decoders.hpp"
#include "io/decode/decoding_source.hpp"
#include "io/decode/gzip_header.hpp"

namespace metawarp::io {
namespace {

class InflateResumeSource final : public DecodingSource {
 public:
  InflateResumeSource(CompressedInput input, ResumePoint point, NextMemberDecoder next)
      : DecodingSource(std::move(input)),
        crc_(point.crc),
        length_(point.length),
        deflate_done_(point.deflate_done),
        next_(std::move(next)) {
    if (inflateInit2(&stream_, -15) != Z_OK) throw SourceError("cannot initialise zlib");
    if (deflate_done_) return;
    if (point.bit > 0) {
      // The boundary lies inside a byte: its upper bits go in first.
      if (!input_.has(1)) throw input_.truncated();
      const int bits = 8 - static_cast<int>(point.bit);
      if (inflatePrime(&stream_, bits, *input_.data() >> point.bit) != Z_OK)
        throw SourceError("cannot prime zlib stream");
      input_.consume(1);
    }
    if (!point.window.empty() &&
        inflateSetDictionary(&stream_, reinterpret_cast<const Bytef*>(point.window.data()),
                             static_cast<uInt>(point.window.size())) != Z_OK)
      throw SourceError("cannot set zlib dictionary");
  }
  ~InflateResumeSource() override { inflateEnd(&stream_); }
  InflateResumeSource(const InflateResumeSource&) = delete;
  InflateResumeSource& operator=(const InflateResumeSource&) = delete;

  std::uint64_t raw_bytes_read() const override {
    if (rest_) return rest_->raw_bytes_read();
    return handed_over_ ? raw_bytes_at_handover_ : DecodingSource::raw_bytes_read();
  }

 private:
  bool decode(char* destination, std::size_t capacity, std::size_t& produced) override {
    if (rest_) {
      produced = rest_->read(destination, capacity);
      return produced > 0;
    }
    while (!deflate_done_) {
      inflate_some(destination, capacity, produced);
      if (produced > 0) return true;
    }
    check_trailer();
    raw_bytes_at_handover_ = input_.raw().raw_bytes_read();
    handed_over_ = true;
    rest_ = next_(std::move(input_));
    produced = rest_->read(destination, capacity);
    return produced > 0;
  }

  // As the zlib decoder does (gzip_zlib_source.cpp), and the running CRC.
  void inflate_some(char* destination, std::size_t capacity, std::size_t& produced) {
    const bool more = input_.available() > 0 || input_.refill();
    stream_.next_in = const_cast<Bytef*>(input_.data());
    stream_.avail_in = static_cast<uInt>(std::min<std::size_t>(input_.available(), UINT_MAX));
    stream_.next_out = reinterpret_cast<Bytef*>(destination);
    const uInt out_start = static_cast<uInt>(std::min<std::size_t>(capacity, UINT_MAX));
    stream_.avail_out = out_start;
    const uInt in_start = stream_.avail_in;
    const int status = inflate(&stream_, Z_NO_FLUSH);
    input_.consume(in_start - stream_.avail_in);
    produced = out_start - stream_.avail_out;
    crc_ = crc32(crc_, reinterpret_cast<const Bytef*>(destination), static_cast<uInt>(produced));
    length_ += produced;
    if (status == Z_STREAM_END) {
      deflate_done_ = true;
    } else if (status != Z_OK && status != Z_BUF_ERROR) {
      throw input_.corrupt(stream_.msg ? stream_.msg : zError(status));
    } else if (!more && produced == 0) {
      throw input_.truncated();
    }
  }

  // zlib's gzip trailer checks, in zlib's order, with zlib's messages.
  void check_trailer() {
    if (!input_.has(4)) throw input_.truncated();
    if (little_endian_32(input_.data()) != static_cast<std::uint32_t>(crc_))
      throw input_.corrupt("incorrect data check");
    if (!input_.has(8)) throw input_.truncated();
    if (little_endian_32(input_.data() + 4) != static_cast<std::uint32_t>(length_))
      throw input_.corrupt("incorrect length check");
    input_.consume(8);
  }

  z_stream stream_{};
  uLong crc_;
  std::uint64_t length_;
  bool deflate_done_;
  NextMemberDecoder next_;
  std::unique_ptr<ByteSource> rest_;  // the file after this member
  bool handed_over_ = false;          // input_ has gone to `next_`
  std::uint64_t raw_bytes_at_handover_ = 0;
};

}  // namespace

std::unique_ptr<ByteSource> make_inflate_resume_source(CompressedInput input, ResumePoint point,
                                                       NextMemberDecoder next) {
  return std::make_unique<InflateResumeSource>(std::move(input), std::move(point), std::move(next));
}

}  // namespace metawarp::io
