#pragma once
// Where the bytes of an input come from: a file or stdin, plain or
// compressed (gzip, bzip2, zstd), recognised from the content
// (io/decode/byte_format.hpp, the decoder chosen in open_decoder.cpp; one
// decoder per file, io/decode/decoders.hpp).
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
  // Throws SourceError on read errors and corrupt or truncated compressed
  // data, once every byte before the problem has been returned.
  virtual std::size_t read(char* destination, std::size_t capacity) = 0;
  virtual bool compressed() const = 0;
  // Bytes taken from the file or pipe so far (compressed size for gzip).
  virtual std::uint64_t raw_bytes_read() const = 0;
};

// How compressed input is decoded. Every choice gives the same bytes and the
// same errors; they differ in speed only (docs/input-limits.md).
struct DecodeOptions {
  enum class Gzip {
    fastest,  // ISA-L where metawarp was built with it, else zlib
    zlib,     // the reference
    isal,     // ISA-L (zlib where metawarp was built without it)
  };
  Gzip gzip = Gzip::fastest;
  // Threads that decode the members of a BGZF file at once (1: serial;
  // 0: default_decode_threads()). Other gzip files are decoded serially.
  unsigned threads = 1;
  // Decode on a thread of its own, ahead of the reader (bounded: a few MiB).
  bool read_ahead = false;
};

// Threads per BGZF input when none are given: the hardware threads, at most 4
// (a paired query decodes two inputs at once).
unsigned default_decode_threads();

// Plain, gzip (1f 8b), bzip2 ("BZh" and a digit) or zstd (28 b5 2f fd),
// from the first bytes of `raw`.
std::unique_ptr<ByteSource> detect_compression(std::unique_ptr<ByteSource> raw,
                                               const DecodeOptions& options = {});

// How an input read to its end is decoded: gzip on default_decode_threads(),
// compressed input ahead of the reader on a thread of its own.
DecodeOptions reader_decode_options();

// "-" is stdin. Throws SourceError when the file cannot be opened or read.
// Decoded with reader_decode_options().
std::unique_ptr<ByteSource> open_byte_source(const std::string& path);
std::unique_ptr<ByteSource> open_byte_source(const std::string& path, const DecodeOptions& options);

}  // namespace metawarp::io
