#pragma once
// Where the bytes of an input come from: a file or stdin, plain or gzip.
// Compression is detected from the first two bytes (1f 8b), never from the
// file name, so a misnamed file or a gzip stream on stdin both work.
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
  using std::runtime_error::runtime_error;
};

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Fills up to `capacity` bytes; returns 0 only at the end of the input.
  // Throws SourceError on read errors and corrupt or truncated gzip data.
  virtual std::size_t read(char* destination, std::size_t capacity) = 0;
  virtual bool compressed() const = 0;
  // Bytes taken from the file or pipe so far (compressed size for gzip).
  virtual std::uint64_t raw_bytes_read() const = 0;
};

// "-" is stdin. Throws SourceError when the file cannot be opened.
std::unique_ptr<ByteSource> open_byte_source(const std::string& path);

}  // namespace metawarp::io
