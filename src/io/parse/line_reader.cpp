#include "io/parse/line_reader.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace metawarp::io {

LineReader::LineReader(std::unique_ptr<ByteSource> source, std::size_t buffer_size)
    : source_(std::move(source)),
      buffer_(std::make_unique_for_overwrite<char[]>(buffer_size)),
      buffer_size_(buffer_size),
      data_(buffer_.get()) {}

LineReader::LineReader(std::string_view block, std::uint64_t lines_before,
                       std::optional<SourceError> read_error, bool cut_inside_line)
    : data_(block.data()),
      read_error_(std::move(read_error)),
      cut_inside_line_(cut_inside_line),
      end_(block.size()),
      line_number_(lines_before) {}

bool LineReader::refill(std::size_t limit) {
  if (!source_) {
    if (read_error_) throw *read_error_;
    // The splitter cut the block here because the line is bad, and the
    // same verdict has just found it acceptable: a bug, not bad input.
    if (cut_inside_line_) throw std::logic_error("record block cut inside an acceptable line");
    return false;
  }
  if (at_end_) return false;
  const std::size_t unread = end_ - begin_;
  if (begin_ > 0) {
    std::memmove(buffer_.get(), buffer_.get() + begin_, unread);
    begin_ = 0;
    end_ = unread;
  }
  if (end_ == buffer_size_) {
    // One line fills the buffer. It needs room for limit + 1 bytes and a
    // '\r' to be seen as too long, and never more.
    const std::size_t needed = limit >= no_line_limit - 2 ? no_line_limit : limit + 2;
    const std::size_t grown = std::min(2 * buffer_size_, std::max(needed, buffer_size_ + 1));
    auto larger = std::make_unique_for_overwrite<char[]>(grown);
    std::memcpy(larger.get(), buffer_.get(), end_);
    buffer_ = std::move(larger);
    buffer_size_ = grown;
    data_ = buffer_.get();
  }
  const std::size_t n = source_->read(buffer_.get() + end_, buffer_size_ - end_);
  if (n == 0) {
    at_end_ = true;
    return false;
  }
  end_ += n;
  return true;
}

std::string_view LineReader::take(std::size_t length, std::size_t terminator, bool strip_cr) {
  const char* start = data_ + begin_;
  begin_ += length + terminator;
  bytes_consumed_ += length + terminator;
  scanned_ = 0;
  checked_ = 0;
  ++line_number_;
  if (strip_cr && length > 0 && start[length - 1] == '\r') --length;
  return {start, length};
}

void LineReader::skip_lines(std::size_t bytes, std::uint64_t lines) {
  if (lines == 0) return;
  begin_ += bytes;
  bytes_consumed_ += bytes;
  line_number_ += lines;
  scanned_ = 0;
  checked_ = 0;
}

bool LineReader::next(std::string_view& line, LineKind kind) {
  while (true) {
    const char* start = data_ + begin_;
    const std::size_t unscanned = end_ - begin_ - scanned_;
    const auto* newline =
        unscanned == 0 ? nullptr
                       : static_cast<const char*>(std::memchr(start + scanned_, '\n', unscanned));
    if (newline != nullptr) {
      line = take(static_cast<std::size_t>(newline - start), 1, true);
      return true;
    }
    scanned_ = end_ - begin_;
    if (stopped_) return false;
    // The line's end is not here yet: judge it before reading more of it.
    const std::string_view so_far(start, end_ - begin_);
    if (judge_partial_line(so_far, kind, checked_) != PartialLine::acceptable) {
      stopped_ = true;
      line = take(known_content(so_far).size(), 0, false);
      return true;
    }
    judged_line_ = line_number_ + 1;
    judged_bytes_ = checked_;
    const std::size_t limit = so_far.empty() ? no_line_limit : max_line_bytes(kind, so_far.front());
    if (refill(limit)) continue;
    if (end_ == begin_) return false;
    line = take(end_ - begin_, 0, true);  // last line without '\n'
    return true;
  }
}

}  // namespace metawarp::io
