#pragma once
// Where the bytes of an input come from: a file or stdin, plain or gzip
// (io/byte_sources.cpp).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace metawarp::io {

// A failure of the byte stream itself (open/read error, corrupt gzip). The
// parser adds file name and record number before it reaches the user.
class SourceError : public std::runtime_error {
 public:
  // `after_data`: the problem lies after the last byte of data (bytes after
  // the end of a gzip stream), so it belongs to no record.
  explicit SourceError(const std::string& problem, bool after_data = false)
      : std::runtime_error(problem), after_data_(after_data) {}
  bool after_data() const { return after_data_; }

 private:
  bool after_data_;
};

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Fills up to `capacity` bytes; returns 0 only at the end of the input.
  // Throws SourceError on read errors and corrupt or truncated gzip data,
  // once every byte before the problem has been returned.
  virtual std::size_t read(char* destination, std::size_t capacity) = 0;
  virtual bool compressed() const = 0;
  // Bytes taken from the file or pipe so far (compressed size for gzip).
  virtual std::uint64_t raw_bytes_read() const = 0;
};

// Gzip or plain, from the first bytes of `raw` (1f 8b: gzip).
std::unique_ptr<ByteSource> detect_compression(std::unique_ptr<ByteSource> raw);

// "-" is stdin. Throws SourceError when the file cannot be opened or read.
std::unique_ptr<ByteSource> open_byte_source(const std::string& path);

}  // namespace metawarp::io
