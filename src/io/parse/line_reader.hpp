#pragma once
// Splits a ByteSource, or a block already in memory, into lines with memchr
// over a buffer. A line is returned without its '\n' and without a
// trailing '\r' (CRLF files). A line longer than the buffer grows the buffer,
// so single-line FASTA of any length works, but only as far as the line's
// kind allows (io/cut/line_limits.hpp): input without line ends is never
// buffered whole.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "io/cut/line_limits.hpp"
#include "io/decode/byte_source.hpp"

namespace metawarp::io {

class LineReader {
 public:
  // Small enough to stay in a core's cache between the read() that fills it
  // and the parse that empties it: the build runs a reader per core, and 4
  // MiB buffers (32 readers: 128 MiB) sent every byte through memory twice
  // more, on hosts whose memory bandwidth bounds the build's read. Reads of
  // this size cost nothing next to the copying; a longer line grows it.
  static constexpr std::size_t default_buffer_size = std::size_t{256} << 10;

  explicit LineReader(std::unique_ptr<ByteSource> source,
                      std::size_t buffer_size = default_buffer_size);
  // The lines of `block` (not copied: it must outlive the reader), numbered
  // from lines_before + 1. Past the block's end, `read_error` is thrown when
  // set, as the source that the block was cut from did at that point;
  // `cut_inside_line`: the block ends inside a line that judge_partial_line()
  // rejects.
  LineReader(std::string_view block, std::uint64_t lines_before,
             std::optional<SourceError> read_error = std::nullopt, bool cut_inside_line = false);

  // False at the end of input. `line` stays valid until the next call. A
  // line that judge_partial_line() rejects before its end is read is
  // returned as read so far (longer than its limit, or holding the bad byte,
  // which the caller's checks then report), and no line follows it.
  bool next(std::string_view& line, LineKind kind);

  // The bytes read and not yet returned as lines (none once a rejected line
  // was returned): a caller may take whole lines off their front at once,
  // with skip_lines().
  std::string_view unread() const {
    return stopped_ ? std::string_view() : std::string_view(data_ + begin_, end_ - begin_);
  }
  // Moves past the first `bytes` of unread(), `lines` whole lines each
  // ended by '\n', as that many next() calls would.
  void skip_lines(std::size_t bytes, std::uint64_t lines);

  std::uint64_t line_number() const { return line_number_; }  // of the last line returned
  // How many bytes at the start of the last line returned judge_partial_line()
  // already found to be sequence characters (a FASTA sequence line that
  // spanned reads): its caller need not check them again.
  std::size_t checked_bytes() const { return judged_line_ == line_number_ ? judged_bytes_ : 0; }
  std::uint64_t bytes_consumed() const { return bytes_consumed_; }

 private:
  // Moves the unread tail to the front and reads more (growing the buffer
  // when the line fills it, up to what `limit` needs); false at end of input.
  bool refill(std::size_t limit);
  // Returns the `length` bytes from begin_ as the next line and moves past
  // them and `terminator` more bytes (the '\n').
  std::string_view take(std::size_t length, std::size_t terminator, bool strip_cr);

  std::unique_ptr<ByteSource> source_;  // null: reading a block in memory
  // The source's bytes (none for a block). Left uninitialised: a reader of a
  // small file touches only the pages it fills.
  std::unique_ptr<char[]> buffer_;
  std::size_t buffer_size_ = 0;
  const char* data_ = nullptr;          // buffer_.get() or the block
  std::optional<SourceError> read_error_;  // a block's: thrown once its bytes are used up
  bool cut_inside_line_ = false;           // a block's: it ends inside a rejected line
  std::size_t begin_ = 0;    // first unread byte
  std::size_t end_ = 0;      // one past the last valid byte
  std::size_t scanned_ = 0;  // bytes after begin_ known to hold no '\n'
  std::size_t checked_ = 0;  // bytes after begin_ that judge_partial_line() accepted
  // The last line judged while incomplete, and checked_ then (kept apart
  // from take(), which every line passes through).
  std::uint64_t judged_line_ = 0;
  std::size_t judged_bytes_ = 0;
  bool at_end_ = false;
  bool stopped_ = false;     // a rejected line was returned
  std::uint64_t line_number_ = 0;
  std::uint64_t bytes_consumed_ = 0;
};

}  // namespace metawarp::io
