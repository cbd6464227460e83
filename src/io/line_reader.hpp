#pragma once
// Splits a ByteSource, or a block already in memory, into lines with memchr
// over a large buffer. A line is returned without its '\n' and without a
// trailing '\r' (CRLF files). A line longer than the buffer grows the buffer,
// so single-line FASTA of any length works.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/byte_source.hpp"

namespace metawarp::io {

class LineReader {
 public:
  static constexpr std::size_t default_buffer_size = std::size_t{4} << 20;

  explicit LineReader(std::unique_ptr<ByteSource> source,
                      std::size_t buffer_size = default_buffer_size);
  // The lines of `block` (not copied: it must outlive the reader), numbered
  // from lines_before + 1. `read_error`, when set, is thrown when more bytes
  // are needed past the block, as the source that the block was cut from
  // did at that point.
  LineReader(std::string_view block, std::uint64_t lines_before,
             std::optional<SourceError> read_error = std::nullopt);

  // False at the end of input. `line` stays valid until the next call.
  bool next(std::string_view& line);

  std::uint64_t line_number() const { return line_number_; }  // of the last line returned
  std::uint64_t bytes_consumed() const { return bytes_consumed_; }

 private:
  // Moves the unread tail to the front and reads more; false at end of input.
  bool refill();

  std::unique_ptr<ByteSource> source_;  // null: reading a block in memory
  std::vector<char> buffer_;            // the source's bytes (unused for a block)
  const char* data_ = nullptr;          // buffer_.data() or the block
  std::optional<SourceError> read_error_;  // a block's: thrown once its bytes are used up
  std::size_t begin_ = 0;    // first unread byte
  std::size_t end_ = 0;      // one past the last valid byte
  std::size_t scanned_ = 0;  // bytes after begin_ known to hold no '\n'
  bool at_end_ = false;
  std::uint64_t line_number_ = 0;
  std::uint64_t bytes_consumed_ = 0;
};

}  // namespace metawarp::io
