#include "io/line_reader.hpp"

#include <cstring>

namespace metawarp::io {

LineReader::LineReader(std::unique_ptr<ByteSource> source, std::size_t buffer_size)
    : source_(std::move(source)), buffer_(buffer_size), data_(buffer_.data()) {}

LineReader::LineReader(std::string_view block, std::uint64_t lines_before,
                       std::optional<SourceError> read_error)
    : data_(block.data()),
      read_error_(std::move(read_error)),
      end_(block.size()),
      line_number_(lines_before) {}

bool LineReader::refill() {
  if (!source_) {
    if (read_error_) throw *read_error_;
    return false;
  }
  if (at_end_) return false;
  const std::size_t unread = end_ - begin_;
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, unread);
    begin_ = 0;
    end_ = unread;
  }
  if (end_ == buffer_.size()) {
    buffer_.resize(buffer_.size() * 2);  // one line fills it
    data_ = buffer_.data();
  }
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
    const char* start = data_ + begin_;
    const std::size_t unscanned = end_ - begin_ - scanned_;
    const auto* newline =
        unscanned == 0 ? nullptr
                       : static_cast<const char*>(std::memchr(start + scanned_, '\n', unscanned));
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
      start = data_ + begin_;
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
