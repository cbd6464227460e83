#include "io/line_reader.hpp"

#include <cstring>

namespace metawarp::io {

LineReader::LineReader(std::unique_ptr<ByteSource> source, std::size_t buffer_size)
    : source_(std::move(source)), buffer_(buffer_size) {}

bool LineReader::refill() {
  if (at_end_) return false;
  const std::size_t unread = end_ - begin_;
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, unread);
    begin_ = 0;
    end_ = unread;
  }
  if (end_ == buffer_.size()) buffer_.resize(buffer_.size() * 2);  // one line fills it
  const std::size_t n = source_->read(buffer_.data() + end_, buffer_.size() - end_);
  if (n == 0) {
    at_end_ = true;
    return false;
  }
  end_ += n;
  return true;
}

bool LineReader::next(std::string_view& line) {
  while (true) {
    const char* start = buffer_.data() + begin_;
    const char* scan_from = start + scanned_;
    const auto* newline =
        static_cast<const char*>(std::memchr(scan_from, '\n', end_ - begin_ - scanned_));
    std::size_t length;
    std::size_t consumed;
    if (newline != nullptr) {
      length = static_cast<std::size_t>(newline - start);
      consumed = length + 1;
    } else {
      scanned_ = end_ - begin_;
      if (refill()) continue;
      if (end_ == begin_) return false;
      length = end_ - begin_;  // last line without '\n'
      consumed = length;
      start = buffer_.data() + begin_;
    }
    begin_ += consumed;
    scanned_ = 0;
    bytes_consumed_ += consumed;
    ++line_number_;
    if (length > 0 && start[length - 1] == '\r') --length;
    line = std::string_view(start, length);
    return true;
  }
}

}  // namespace metawarp::io
