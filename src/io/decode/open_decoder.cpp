// Which decoder reads an input, chosen here and nowhere else: the format
// from its first bytes (detect_format), and for gzip which of the gzip
// decoders (BGZF members on several threads, one big member in pieces on
// several threads, or serially). The sequence readers, the cutter and the
// taxonomy loaders read through these, so compressed files, their trailing
// bytes and their errors are handled by this one piece of code everywhere.
#include "io/decode/byte_source.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>

#include "io/decode/byte_format.hpp"
#include "io/decode/decoders.hpp"
#include "io/decode/file_source.hpp"
#include "metawarp/host/cores.hpp"

namespace metawarp::io {
namespace {

// Plain data: the bytes read to detect the format, then the rest.
class PlainSource final : public ByteSource {
 public:
  PlainSource(std::unique_ptr<ByteSource> raw, std::string prefix)
      : raw_(std::move(raw)), prefix_(std::move(prefix)) {}

  std::size_t read(char* destination, std::size_t capacity) override {
    if (prefix_used_ < prefix_.size()) {
      const std::size_t n = std::min(capacity, prefix_.size() - prefix_used_);
      std::memcpy(destination, prefix_.data() + prefix_used_, n);
      prefix_used_ += n;
      return n;
    }
    return raw_->read(destination, capacity);
  }
  bool compressed() const override { return false; }
  std::uint64_t raw_bytes_read() const override { return raw_->raw_bytes_read(); }

 private:
  std::unique_ptr<ByteSource> raw_;
  std::string prefix_;
  std::size_t prefix_used_ = 0;
};

// The first `count` bytes (fewer if the input is shorter).
std::string read_prefix(ByteSource& raw, std::size_t count) {
  std::string prefix(count, '\0');
  std::size_t got = 0;
  while (got < count) {
    const std::size_t n = raw.read(prefix.data() + got, count - got);
    if (n == 0) break;
    got += n;
  }
  prefix.resize(got);
  return prefix;
}

std::unique_ptr<ByteSource> gzip_source(CompressedInput input, const DecodeOptions& options) {
  const unsigned threads = options.threads == 0 ? default_decode_threads() : options.threads;
  return make_parallel_gzip_source(std::move(input), threads, options.gzip);
}

}  // namespace

ByteFormat detect_format(std::string_view prefix) {
  if (prefix.substr(0, 2) == "\x1f\x8b") return ByteFormat::gzip;
  if (prefix.size() >= 4 && prefix.substr(0, 3) == "BZh" && prefix[3] >= '1' && prefix[3] <= '9')
    return ByteFormat::bzip2;
  if (prefix.substr(0, 4) == std::string_view("\x28\xb5\x2f\xfd", 4)) return ByteFormat::zstd;
  return ByteFormat::plain;
}

std::unique_ptr<ByteSource> make_serial_gzip_source(CompressedInput input, DecodeOptions::Gzip decoder) {
  if (decoder != DecodeOptions::Gzip::zlib && isal_available()) return make_isal_gzip_source(std::move(input));
  return make_zlib_gzip_source(std::move(input));
}

std::unique_ptr<ByteSource> make_parallel_gzip_source(CompressedInput input, unsigned threads,
                                                      DecodeOptions::Gzip serial_decoder,
                                                      const ChunkedGzipSettings& settings) {
  if (threads <= 1) return make_serial_gzip_source(std::move(input), serial_decoder);
  if (bgzf_member_at(input) > 0) return make_bgzf_source(std::move(input), threads, serial_decoder);
  if (settings.chunked && threads >= settings.min_threads) {
    // Room to see whether the member is bigger than one piece (untouched
    // pages of the buffer cost nothing for a small file).
    const std::size_t buffer = 2 * (settings.chunk + settings.overlap) + (std::size_t{1} << 20);
    const std::uint64_t offset = input.offset();
    const std::string unread(reinterpret_cast<const char*>(input.data()), input.available());
    CompressedInput larger(input.take_raw(), unread, "gzip", offset, buffer);
    if (chunked_gzip_member_at(larger, settings))
      return make_chunked_gzip_source(std::move(larger), threads, serial_decoder, settings);
    return make_serial_gzip_source(std::move(larger), serial_decoder);
  }
  return make_serial_gzip_source(std::move(input), serial_decoder);
}

unsigned default_decode_threads() {
  // Up to 4: a paired query decodes two inputs at once, and 4 threads of
  // libdeflate already outrun what the rest of a query takes from one input.
  return std::min(host::usable_cores(), 4u);
}

std::unique_ptr<ByteSource> detect_compression(std::unique_ptr<ByteSource> raw,
                                               const DecodeOptions& options) {
  std::string prefix = read_prefix(*raw, format_prefix_bytes);
  std::unique_ptr<ByteSource> decoder;
  switch (detect_format(prefix)) {
    case ByteFormat::plain: return std::make_unique<PlainSource>(std::move(raw), std::move(prefix));
    case ByteFormat::gzip: decoder = gzip_source(CompressedInput(std::move(raw), prefix, "gzip"), options); break;
    case ByteFormat::bzip2: decoder = make_bzip2_source(CompressedInput(std::move(raw), prefix, "bzip2")); break;
    case ByteFormat::zstd: decoder = make_zstd_source(CompressedInput(std::move(raw), prefix, "zstd")); break;
  }
  if (options.read_ahead) return make_read_ahead_source(std::move(decoder), std::size_t{1} << 20, 4);
  return decoder;
}

std::unique_ptr<ByteSource> open_byte_source(const std::string& path, const DecodeOptions& options) {
  return detect_compression(std::make_unique<FileSource>(path), options);
}

DecodeOptions reader_decode_options() {
  DecodeOptions options;
  options.threads = 0;
  options.read_ahead = true;
  return options;
}

std::unique_ptr<ByteSource> open_byte_source(const std::string& path) {
  return open_byte_source(path, reader_decode_options());
}

}  // namespace metawarp::io
