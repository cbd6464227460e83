// zstd through libzstd's streaming decoder. Concatenated frames (and
// skippable frames, which hold no data) are read one after another; what may
// follow a frame is CompressedInput's rule (another frame, zero padding, or
// nothing). The end of the file inside a frame and every libzstd error are
// errors; bytes decoded before an error are handed out first
// (DecodingSource). The decoder's window is capped (ZSTD_d_windowLogMax) at
// zstd's default limit, 128 MiB, so memory stays bounded.
#include <zstd.h>

#include "io/decode/decoders.hpp"
#include "io/decode/decoding_source.hpp"

namespace metawarp::io {
namespace {

bool starts_zstd(const unsigned char* bytes) {
  const std::uint32_t magic = std::uint32_t{bytes[0]} | std::uint32_t{bytes[1]} << 8 |
                              std::uint32_t{bytes[2]} << 16 | std::uint32_t{bytes[3]} << 24;
  return magic == 0xFD2FB528u || (magic & 0xFFFFFFF0u) == 0x184D2A50u;  // data or skippable frame
}

class ZstdSource final : public DecodingSource {
 public:
  explicit ZstdSource(CompressedInput input)
      : DecodingSource(std::move(input)), stream_(ZSTD_createDStream()) {
    if (stream_ == nullptr) throw SourceError("cannot initialise libzstd");
    ZSTD_DCtx_setParameter(stream_, ZSTD_d_windowLogMax, 27);
  }
  ~ZstdSource() override { ZSTD_freeDStream(stream_); }
  ZstdSource(const ZstdSource&) = delete;
  ZstdSource& operator=(const ZstdSource&) = delete;

 private:
  bool decode(char* destination, std::size_t capacity, std::size_t& produced) override {
    ZSTD_outBuffer out{destination, capacity, 0};
    while (out.pos == 0) {
      if (!frame_open_) {
        if (!input_.next_stream_follows(4, starts_zstd)) return false;
        ZSTD_DCtx_reset(stream_, ZSTD_reset_session_only);
        frame_open_ = true;
      }
      const bool more = input_.available() > 0 || input_.refill();
      ZSTD_inBuffer in{input_.data(), input_.available(), 0};
      const std::size_t result = ZSTD_decompressStream(stream_, &out, &in);
      input_.consume(in.pos);
      produced = out.pos;
      if (ZSTD_isError(result)) throw input_.corrupt(ZSTD_getErrorName(result));
      if (result == 0) {
        frame_open_ = false;
      } else if (!more && in.pos == 0 && produced == 0) {
        throw input_.truncated();
      }
    }
    return true;
  }

  ZSTD_DStream* stream_;
  bool frame_open_ = false;
};

}  // namespace

std::unique_ptr<ByteSource> make_zstd_source(CompressedInput input) {
  return std::make_unique<ZstdSource>(std::move(input));
}

}  // namespace metawarp::io
