#include "io/decode/compressed_input.hpp"

#include <algorithm>
#include <cstring>

namespace metawarp::io {

CompressedInput::CompressedInput(std::unique_ptr<ByteSource> raw, std::string_view prefix,
                                 const char* format, std::uint64_t offset, std::size_t buffer_size)
    : raw_(std::move(raw)),
      format_(format),
      size_(std::max(buffer_size, 2 * prefix.size())),
      buffer_(std::make_unique_for_overwrite<unsigned char[]>(size_)),
      end_(prefix.size()),
      buffer_offset_(offset) {
  std::memcpy(buffer_.get(), prefix.data(), prefix.size());
}

bool CompressedInput::refill() {
  // Keep the bytes from the mark while they are at most half the buffer, so
  // a decoder can still go back to the start of a small member.
  std::size_t keep_from = begin_;
  if (marked_) {
    if (end_ - mark_ <= size_ / 2) {
      keep_from = mark_;
    } else {
      marked_ = false;
    }
  }
  if (keep_from > 0) {
    std::memmove(buffer_.get(), buffer_.get() + keep_from, end_ - keep_from);
    buffer_offset_ += keep_from;
    begin_ -= keep_from;
    end_ -= keep_from;
    if (marked_) mark_ -= keep_from;
  }
  if (end_ == size_) return false;  // only when the caller asks for more than the buffer holds
  const std::size_t n = raw_->read(reinterpret_cast<char*>(buffer_.get()) + end_, size_ - end_);
  end_ += n;
  return n > 0;
}

bool CompressedInput::has(std::size_t count) {
  while (available() < count) {
    if (!refill()) return false;
  }
  return true;
}

std::string_view CompressedInput::since_mark() const {
  return {reinterpret_cast<const char*>(buffer_.get() + mark_), begin_ - mark_};
}

bool CompressedInput::next_stream_follows(std::string_view magic) {
  if (!next_bytes_follow(magic.size())) return false;
  if (available() < magic.size() || std::memcmp(data(), magic.data(), magic.size()) != 0)
    throw unexpected_data();
  return true;
}

bool CompressedInput::next_stream_follows(std::size_t length,
                                          bool (*starts)(const unsigned char* bytes)) {
  if (!next_bytes_follow(length)) return false;
  if (available() < length || !starts(data())) throw unexpected_data();
  return true;
}

bool CompressedInput::next_bytes_follow(std::size_t length) {
  marked_ = false;
  if (!has(1)) return false;
  if (*data() == 0) {
    do {
      const unsigned char* end = data() + available();
      const unsigned char* other = std::find_if(data(), end, [](unsigned char c) { return c != 0; });
      consume(static_cast<std::size_t>(other - data()));
      if (other != end) throw unexpected_data();
    } while (refill());
    return false;
  }
  has(length);
  return true;
}

SourceError CompressedInput::unexpected_data() const {
  return SourceError(std::string("unexpected data after the end of the ") + format_ +
                         " stream (at compressed byte " + std::to_string(offset()) + ")",
                     true);
}

SourceError CompressedInput::truncated() const {
  return SourceError(std::string("truncated ") + format_ + " stream (unexpected end of file)");
}

SourceError CompressedInput::corrupt(const std::string& detail) const {
  return SourceError(std::string("corrupt ") + format_ + " stream: " + detail);
}

}  // namespace metawarp::io
