#pragma once
// A file read with read(2), or stdin ("-", borrowed, not closed).
#include <cstdint>
#include <string>

#include "io/decode/byte_source.hpp"

namespace metawarp::io {

class FileSource final : public ByteSource {
 public:
  // Throws SourceError when the file cannot be opened.
  explicit FileSource(const std::string& path);
  ~FileSource() override;
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  // Throws SourceError on a read error (a directory included).
  std::size_t read(char* destination, std::size_t capacity) override;
  bool compressed() const override { return false; }
  std::uint64_t raw_bytes_read() const override { return total_; }

  // The descriptor, for a reader that looks at the file before it chooses
  // how to read it (its size, its first bytes through pread).
  int descriptor() const { return fd_; }
  // Hands the descriptor (of a file, not stdin) to the caller, who closes
  // it; this source reads nothing more.
  int release();

 private:
  int fd_ = -1;
  bool owned_ = true;
  std::uint64_t total_ = 0;
};

}  // namespace metawarp::io
