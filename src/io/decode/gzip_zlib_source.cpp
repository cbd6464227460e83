// gzip through zlib's inflate: the reference decoder. Concatenated members
// (bgzip, `cat a.gz b.gz`, empty ones too) are read one after another; what
// may follow a member is CompressedInput's rule (another member, zero
// padding, or nothing). The end of the file inside a member and every zlib
// error are errors: none is taken for a clean end. (What a corrupt stream
// decodes to before zlib notices, at the latest at the member's checksum,
// is handed out like any other bytes: DecodingSource.)
#include <zlib.h>

#include <algorithm>
#include <climits>

#include "io/decode/decoders.hpp"
#include "io/decode/decoding_source.hpp"

namespace metawarp::io {
namespace {

class ZlibGzipSource final : public DecodingSource {
 public:
  explicit ZlibGzipSource(CompressedInput input) : DecodingSource(std::move(input)) {
    // 15 + 16: gzip wrapper only (the magic bytes said so).
    if (inflateInit2(&stream_, 15 + 16) != Z_OK) throw SourceError("cannot initialise zlib");
  }
  ~ZlibGzipSource() override { inflateEnd(&stream_); }
  ZlibGzipSource(const ZlibGzipSource&) = delete;
  ZlibGzipSource& operator=(const ZlibGzipSource&) = delete;

 private:
  bool decode(char* destination, std::size_t capacity, std::size_t& produced) override {
    stream_.next_out = reinterpret_cast<Bytef*>(destination);
    const uInt out_start = static_cast<uInt>(std::min<std::size_t>(capacity, UINT_MAX));
    stream_.avail_out = out_start;
    while (stream_.avail_out == out_start) {
      if (!member_open_) {
        if (!input_.next_stream_follows("\x1f\x8b")) return false;
        if (inflateReset(&stream_) != Z_OK) throw SourceError("cannot reset zlib stream");
        member_open_ = true;
      }
      const bool more = input_.available() > 0 || input_.refill();
      const int status = inflate_available();
      produced = out_start - stream_.avail_out;
      if (status == Z_STREAM_END) {
        member_open_ = false;
      } else if (status != Z_OK && status != Z_BUF_ERROR) {
        throw input_.corrupt(stream_.msg ? stream_.msg : zError(status));
      } else if (!more && produced == 0) {
        // zlib may still have held output (part of a match) that needs no
        // input; that was handed out by the call above.
        throw input_.truncated();
      }
    }
    return true;
  }

  int inflate_available() {
    stream_.next_in = const_cast<Bytef*>(input_.data());
    stream_.avail_in = static_cast<uInt>(std::min<std::size_t>(input_.available(), UINT_MAX));
    const uInt before = stream_.avail_in;
    const int status = inflate(&stream_, Z_NO_FLUSH);
    input_.consume(before - stream_.avail_in);
    return status;
  }

  z_stream stream_{};
  bool member_open_ = false;
};

}  // namespace

std::unique_ptr<ByteSource> make_zlib_gzip_source(CompressedInput input) {
  return std::make_unique<ZlibGzipSource>(std::move(input));
}

}  // namespace metawarp::io
