// bzip2 through libbz2. Concatenated streams (pbzip2, `cat a.bz2 b.bz2`) are
// read one after another; what may follow a stream is CompressedInput's rule
// (another stream, zero padding, or nothing). The end of the file inside a
// stream and every libbz2 error are errors; bytes decoded before an error
// are handed out first (DecodingSource).
#include <bzlib.h>

#include <algorithm>
#include <climits>

#include "io/decode/decoders.hpp"
#include "io/decode/decoding_source.hpp"

namespace metawarp::io {
namespace {

const char* bzip2_problem(int status) {
  switch (status) {
    case BZ_DATA_ERROR: return "data integrity error (bad block or checksum)";
    case BZ_DATA_ERROR_MAGIC: return "bad stream header";
    case BZ_MEM_ERROR: return "out of memory";
    default: return "libbz2 error";
  }
}

bool starts_bzip2(const unsigned char* bytes) {
  return bytes[0] == 'B' && bytes[1] == 'Z' && bytes[2] == 'h' && bytes[3] >= '1' && bytes[3] <= '9';
}

class Bzip2Source final : public DecodingSource {
 public:
  explicit Bzip2Source(CompressedInput input) : DecodingSource(std::move(input)) {}
  ~Bzip2Source() override { end_stream(); }
  Bzip2Source(const Bzip2Source&) = delete;
  Bzip2Source& operator=(const Bzip2Source&) = delete;

 private:
  bool decode(char* destination, std::size_t capacity, std::size_t& produced) override {
    stream_.next_out = destination;
    const unsigned out_start = static_cast<unsigned>(std::min<std::size_t>(capacity, UINT_MAX));
    stream_.avail_out = out_start;
    while (stream_.avail_out == out_start) {
      if (!open_) {
        if (!input_.next_stream_follows(4, starts_bzip2)) return false;
        if (BZ2_bzDecompressInit(&stream_, 0, 0) != BZ_OK) throw SourceError("cannot initialise libbz2");
        open_ = true;
      }
      const bool more = input_.available() > 0 || input_.refill();
      stream_.next_in = const_cast<char*>(reinterpret_cast<const char*>(input_.data()));
      stream_.avail_in = static_cast<unsigned>(std::min<std::size_t>(input_.available(), UINT_MAX));
      const unsigned in_before = stream_.avail_in;
      const int status = BZ2_bzDecompress(&stream_);
      input_.consume(in_before - stream_.avail_in);
      produced = out_start - stream_.avail_out;
      if (status == BZ_STREAM_END) {
        end_stream();
      } else if (status != BZ_OK) {
        throw input_.corrupt(bzip2_problem(status));
      } else if (!more && produced == 0) {
        throw input_.truncated();
      }
    }
    return true;
  }

  void end_stream() {
    if (open_) BZ2_bzDecompressEnd(&stream_);
    open_ = false;
  }

  bz_stream stream_{};
  bool open_ = false;
};

}  // namespace

std::unique_ptr<ByteSource> make_bzip2_source(CompressedInput input) {
  return std::make_unique<Bzip2Source>(std::move(input));
}

}  // namespace metawarp::io
