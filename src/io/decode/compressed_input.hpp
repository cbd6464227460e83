#pragma once
// The compressed bytes of one input as the decoders (gzip, bzip2, zstd) see
// them: a sliding buffer over a ByteSource that knows the file offset of
// every byte, and the rule that every format shares for what may follow a
// complete stream: another stream, zero bytes up to the end of the file
// (padding, as GNU gzip accepts), or nothing. Anything else is "unexpected
// data after the end of the <format> stream (at compressed byte N)".
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "io/decode/byte_source.hpp"

namespace metawarp::io {

class CompressedInput {
 public:
  // `prefix`: the first bytes of the file, already taken from `raw`;
  // `offset`: where they lie in the file (0 unless a decoder takes over
  // from another in the middle of a file).
  CompressedInput(std::unique_ptr<ByteSource> raw, std::string_view prefix, const char* format,
                  std::uint64_t offset = 0, std::size_t buffer_size = std::size_t{1} << 20);

  const unsigned char* data() const { return buffer_.get() + begin_; }
  std::size_t available() const { return end_ - begin_; }
  void consume(std::size_t count) { begin_ += count; }
  // Gives back the last `count` bytes consumed (still in the buffer).
  void unconsume(std::size_t count) { begin_ -= count; }
  // The file offset of data().
  std::uint64_t offset() const { return buffer_offset_ + begin_; }

  // Reads more after the unread bytes (moving them to the front first);
  // false at the end of the file. Bytes from the mark on are kept too while
  // they fill at most half the buffer (see mark()).
  bool refill();
  // At least `count` unread bytes (count <= half the buffer); false when the
  // file ends first.
  bool has(std::size_t count);

  // Remembers the read position (the start of a member), so that a decoder
  // can go back to it while it is still in the buffer.
  void mark() { mark_ = begin_; marked_ = true; }
  bool marked() const { return marked_; }
  // The bytes from the mark to the read position, and the mark's offset.
  std::string_view since_mark() const;
  std::uint64_t mark_offset() const { return buffer_offset_ + mark_; }
  // Moves the read position back to the mark (which must be set).
  void rewind_to_mark() { begin_ = mark_; }

  // After a complete stream: true when another one starts here (its first
  // bytes equal `magic`, or `is_magic` says so), false when the data ends
  // here (nothing or zero bytes to the end of the file); throws
  // unexpected_data() at the first other byte.
  bool next_stream_follows(std::string_view magic);
  // The same, for formats whose streams start with one of several magic
  // numbers of `length` bytes (`starts` says whether `bytes` is one).
  bool next_stream_follows(std::size_t length, bool (*starts)(const unsigned char* bytes));
  SourceError unexpected_data() const;
  SourceError truncated() const;
  SourceError corrupt(const std::string& detail) const;

  const ByteSource& raw() const { return *raw_; }
  std::unique_ptr<ByteSource> take_raw() { return std::move(raw_); }
  const char* format() const { return format_; }

 private:
  // Skips zero padding to the end (false), or true with up to `length`
  // bytes of something else at the read position.
  bool next_bytes_follow(std::size_t length);

  std::unique_ptr<ByteSource> raw_;
  const char* format_;
  std::size_t size_;
  std::unique_ptr<unsigned char[]> buffer_;  // uninitialised: a small file touches few pages
  std::size_t begin_ = 0, end_ = 0;
  std::uint64_t buffer_offset_;  // of buffer_[0] in the file
  std::size_t mark_ = 0;
  bool marked_ = false;
};

}  // namespace metawarp::io
