// Which decoder reads an input, from its first bytes, never from the file
// name, so a misnamed file or a compressed stream on stdin both work. The
// sequence readers and the taxonomy loaders read through these, so
// compressed files, their trailing bytes and their errors are handled by
// this one piece of code everywhere.
#include "io/decode/byte_source.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <thread>

#include "io/decode/decoders.hpp"
#include "io/decode/file_source.hpp"

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

bool is_bzip2(const std::string& prefix) {
  return prefix.size() >= 4 && prefix.compare(0, 3, "BZh") == 0 && prefix[3] >= '1' && prefix[3] <= '9';
}

std::unique_ptr<ByteSource> gzip_source(CompressedInput input, const DecodeOptions& options) {
  const unsigned threads = options.threads == 0 ? default_decode_threads() : options.threads;
  return make_parallel_gzip_source(std::move(input), threads, options.gzip);
}

}  // namespace

unsigned default_decode_threads() {
  // Up to 4: a paired query decodes two inputs at once, and 4 threads of
  // libdeflate already outrun what the rest of a query takes from one input.
  return std::clamp(std::thread::hardware_concurrency(), 1u, 4u);
}

std::unique_ptr<ByteSource> detect_compression(std::unique_ptr<ByteSource> raw,
                                               const DecodeOptions& options) {
  std::string prefix = read_prefix(*raw, 4);
  std::unique_ptr<ByteSource> decoder;
  if (prefix.compare(0, 2, "\x1f\x8b") == 0) {
    decoder = gzip_source(CompressedInput(std::move(raw), prefix, "gzip"), options);
  } else if (is_bzip2(prefix)) {
    decoder = make_bzip2_source(CompressedInput(std::move(raw), prefix, "bzip2"));
  } else if (prefix == std::string("\x28\xb5\x2f\xfd", 4)) {
    decoder = make_zstd_source(CompressedInput(std::move(raw), prefix, "zstd"));
  } else {
    return std::make_unique<PlainSource>(std::move(raw), std::move(prefix));
  }
  if (options.read_ahead) return make_read_ahead_source(std::move(decoder), std::size_t{1} << 20, 4);
  return decoder;
}

std::unique_ptr<ByteSource> open_byte_source(const std::string& path, const DecodeOptions& options) {
  return detect_compression(std::make_unique<FileSource>(path), options);
}

std::unique_ptr<ByteSource> open_byte_source(const std::string& path) {
  DecodeOptions options;
  options.threads = 0;
  options.read_ahead = true;
  return open_byte_source(path, options);
}

}  // namespace metawarp::io
