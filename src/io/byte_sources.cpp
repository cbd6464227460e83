// The ByteSources: a file or stdin, and gzip detected from the first two
// bytes (1f 8b), never from the file name, so a misnamed file or a gzip stream
// on stdin both work. The sequence readers and the taxonomy loaders read
// through these, so gzip files, their trailing bytes and their errors are
// handled by this one piece of code everywhere.
#include "io/byte_source.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace metawarp::io {
namespace {

// A file read with read(2), or stdin ("-", borrowed, not closed). Throws
// SourceError when it cannot be opened or read (a directory included).
class FileSource final : public ByteSource {
 public:
  explicit FileSource(const std::string& path) {
    if (path == "-") {
      fd_ = STDIN_FILENO;
      owned_ = false;
      return;
    }
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw SourceError(std::string("cannot open: ") + std::strerror(errno));
#ifdef POSIX_FADV_SEQUENTIAL
    ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  }
  ~FileSource() override {
    if (owned_) ::close(fd_);
  }
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  std::size_t read(char* destination, std::size_t capacity) override {
    while (true) {
      const ssize_t n = ::read(fd_, destination, capacity);
      if (n >= 0) {
        total_ += static_cast<std::uint64_t>(n);
        return static_cast<std::size_t>(n);
      }
      if (errno != EINTR) throw SourceError(std::string("read error: ") + std::strerror(errno));
    }
  }
  bool compressed() const override { return false; }
  std::uint64_t raw_bytes_read() const override { return total_; }

 private:
  int fd_ = -1;
  bool owned_ = true;
  std::uint64_t total_ = 0;
};

// Plain data: the bytes read to detect the format, then the rest.
class PlainSource final : public ByteSource {
 public:
  PlainSource(std::unique_ptr<ByteSource> raw, std::string prefix)
      : raw_(std::move(raw)), prefix_(std::move(prefix)) {}

  std::size_t read(char* destination, std::size_t capacity) override {
    if (prefix_used_ < prefix_.size()) {
      const std::size_t n = std::min(capacity, prefix_.size() - prefix_used_);
      std::memcpy(destination, prefix_.data() + prefix_used_, n);
      prefix_used_ += n;
      return n;
    }
    return raw_->read(destination, capacity);
  }
  bool compressed() const override { return false; }
  std::uint64_t raw_bytes_read() const override { return raw_->raw_bytes_read(); }

 private:
  std::unique_ptr<ByteSource> raw_;
  std::string prefix_;
  std::size_t prefix_used_ = 0;
};

// zlib inflate over a large input buffer. Concatenated members (bgzip, `cat
// a.gz b.gz`, empty ones too) are read one after another. After a member,
// the file may hold another member, zero bytes up to its end (padding, which
// GNU gzip accepts as well), or nothing; anything else is an error, as are
// the end of the file inside a member and any zlib error: none is taken for
// a clean end.
//
// Every byte zlib decodes before an error is handed out before the error is
// thrown (output it still holds at the end of the input included), so which
// bytes arrive before an error depends only on the file, never on the sizes
// callers ask for: a serial read and the block cutter (record_blocks.hpp)
// report one error at one record. (What a corrupt stream decodes to before
// zlib notices, at the latest at the member's checksum, is parsed like any
// other bytes.)
class GzipSource final : public ByteSource {
 public:
  // `prefix`: the first bytes of the file, already taken from `raw`.
  GzipSource(std::unique_ptr<ByteSource> raw, std::string_view prefix)
      : raw_(std::move(raw)),
        input_size_(std::max(input_buffer_size, prefix.size())),
        input_(std::make_unique_for_overwrite<char[]>(input_size_)) {
    std::memcpy(input_.get(), prefix.data(), prefix.size());
    stream_.next_in = reinterpret_cast<Bytef*>(input_.get());
    stream_.avail_in = static_cast<uInt>(prefix.size());
    // 15 + 16: gzip wrapper only (the magic bytes said so).
    if (inflateInit2(&stream_, 15 + 16) != Z_OK) throw SourceError("cannot initialise zlib");
  }
  ~GzipSource() override { inflateEnd(&stream_); }
  GzipSource(const GzipSource&) = delete;
  GzipSource& operator=(const GzipSource&) = delete;

  // An error is thrown by the first call that has no byte before it to
  // return, and by every call after that.
  std::size_t read(char* destination, std::size_t capacity) override {
    if (error_) throw *error_;
    if (finished_ || capacity == 0) return 0;
    stream_.next_out = reinterpret_cast<Bytef*>(destination);
    stream_.avail_out = static_cast<uInt>(std::min<std::size_t>(capacity, UINT32_MAX));
    const uInt out_start = stream_.avail_out;
    try {
      inflate_some(out_start);
    } catch (const SourceError& error) {
      error_ = error;
      if (stream_.avail_out == out_start) throw;
    }
    return out_start - stream_.avail_out;
  }
  bool compressed() const override { return true; }
  std::uint64_t raw_bytes_read() const override { return raw_->raw_bytes_read(); }

 private:
  static constexpr std::size_t input_buffer_size = std::size_t{1} << 20;

  // Inflates until some output is made or the data ends.
  void inflate_some(uInt out_start) {
    while (stream_.avail_out == out_start) {
      if (!member_open_ && !start_member()) {
        finished_ = true;
        return;
      }
      if (stream_.avail_in == 0 && !read_input()) {
        // zlib may still hold output (part of a match) that needs no input.
        inflate(&stream_, Z_NO_FLUSH);
        if (stream_.avail_out != out_start) return;
        throw SourceError("truncated gzip stream (unexpected end of file)");
      }
      const int status = inflate(&stream_, Z_NO_FLUSH);
      if (status == Z_STREAM_END) {
        member_open_ = false;
      } else if (status != Z_OK && status != Z_BUF_ERROR) {
        throw SourceError(std::string("corrupt gzip stream: ") +
                          (stream_.msg ? stream_.msg : zError(status)));
      }
    }
  }

  // At the start of the file or after a member: true when a member starts
  // here, false when the data ends here (nothing or zero padding follows);
  // throws when other bytes follow.
  bool start_member() {
    if (!has_input(1)) return false;
    if (next_byte(0) == 0) {
      skip_zero_padding();
      return false;
    }
    if (!has_input(2) || next_byte(0) != 0x1f || next_byte(1) != 0x8b) throw unexpected_data();
    if (inflateReset(&stream_) != Z_OK) throw SourceError("cannot reset zlib stream");
    member_open_ = true;
    return true;
  }

  // Zero bytes up to the end of the file; throws at the first other byte.
  void skip_zero_padding() {
    do {
      const auto* begin = reinterpret_cast<const unsigned char*>(stream_.next_in);
      const auto* end = begin + stream_.avail_in;
      const auto* data = std::find_if(begin, end, [](unsigned char c) { return c != 0; });
      stream_.next_in += data - begin;
      stream_.avail_in -= static_cast<uInt>(data - begin);
      if (data != end) throw unexpected_data();
    } while (read_input());
  }

  // The error for the bytes at the read position.
  SourceError unexpected_data() const {
    const auto offset =
        input_offset_ +
        static_cast<std::uint64_t>(reinterpret_cast<const char*>(stream_.next_in) - input_.get());
    return SourceError("unexpected data after the end of the gzip stream (at compressed byte " +
                           std::to_string(offset) + ")",
                       true);
  }

  unsigned char next_byte(std::size_t i) const { return stream_.next_in[i]; }

  // At least `count` unread input bytes (count <= the buffer size); false
  // when the file ends first.
  bool has_input(std::size_t count) {
    while (stream_.avail_in < count) {
      if (!read_input()) return false;
    }
    return true;
  }

  // Moves the unread input to the front of the buffer and reads more after
  // it; false at the end of the file.
  bool read_input() {
    char* unread = reinterpret_cast<char*>(stream_.next_in);
    const std::size_t left = stream_.avail_in;
    input_offset_ += static_cast<std::uint64_t>(unread - input_.get());
    std::memmove(input_.get(), unread, left);
    const std::size_t n = raw_->read(input_.get() + left, input_size_ - left);
    stream_.next_in = reinterpret_cast<Bytef*>(input_.get());
    stream_.avail_in = static_cast<uInt>(left + n);
    return n > 0;
  }

  std::unique_ptr<ByteSource> raw_;
  std::size_t input_size_;
  std::unique_ptr<char[]> input_;   // uninitialised: a small file touches few pages
  std::uint64_t input_offset_ = 0;  // of input_[0] in the file
  z_stream stream_{};
  bool member_open_ = false;
  bool finished_ = false;             // the data has ended cleanly
  std::optional<SourceError> error_;  // thrown by every read() once found
};

}  // namespace

// Gzip or plain, from the first bytes of `raw`.
std::unique_ptr<ByteSource> detect_compression(std::unique_ptr<ByteSource> raw) {
  std::string prefix(2, '\0');
  std::size_t got = 0;
  while (got < prefix.size()) {
    const std::size_t n = raw->read(prefix.data() + got, prefix.size() - got);
    if (n == 0) break;
    got += n;
  }
  prefix.resize(got);
  if (prefix == "\x1f\x8b") return std::make_unique<GzipSource>(std::move(raw), prefix);
  return std::make_unique<PlainSource>(std::move(raw), std::move(prefix));
}

// "-" is stdin. Throws SourceError when the file cannot be opened or read.
std::unique_ptr<ByteSource> open_byte_source(const std::string& path) {
  return detect_compression(std::make_unique<FileSource>(path));
}

}  // namespace metawarp::io
