#include "io/byte_source.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <vector>

namespace metawarp::io {
namespace {

constexpr std::size_t compressed_buffer_size = std::size_t{1} << 20;

std::string system_error_text(int error) { return std::strerror(error); }

// Owns a file descriptor; stdin is borrowed, not closed.
class FileDescriptor {
 public:
  explicit FileDescriptor(const std::string& path) {
    if (path == "-") {
      fd_ = STDIN_FILENO;
      owned_ = false;
      return;
    }
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw SourceError("cannot open: " + system_error_text(errno));
#ifdef POSIX_FADV_SEQUENTIAL
    ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  }
  ~FileDescriptor() {
    if (owned_ && fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;

  // Like read(2) but retries on EINTR and throws on errors (EISDIR included).
  std::size_t read(char* destination, std::size_t capacity) {
    while (true) {
      const ssize_t n = ::read(fd_, destination, capacity);
      if (n >= 0) {
        total_ += static_cast<std::uint64_t>(n);
        return static_cast<std::size_t>(n);
      }
      if (errno != EINTR) throw SourceError("read error: " + system_error_text(errno));
    }
  }
  // Reads until `capacity` bytes or end of input (a pipe may deliver less).
  std::size_t read_fully(char* destination, std::size_t capacity) {
    std::size_t got = 0;
    while (got < capacity) {
      const std::size_t n = read(destination + got, capacity - got);
      if (n == 0) break;
      got += n;
    }
    return got;
  }
  std::uint64_t total() const { return total_; }

 private:
  int fd_ = -1;
  bool owned_ = true;
  std::uint64_t total_ = 0;
};

// The bytes read to sniff the format are handed out first.
class PlainSource final : public ByteSource {
 public:
  PlainSource(std::unique_ptr<FileDescriptor> file, std::vector<char> prefix)
      : file_(std::move(file)), prefix_(std::move(prefix)) {}

  std::size_t read(char* destination, std::size_t capacity) override {
    if (prefix_used_ < prefix_.size()) {
      const std::size_t n = std::min(capacity, prefix_.size() - prefix_used_);
      std::memcpy(destination, prefix_.data() + prefix_used_, n);
      prefix_used_ += n;
      return n;
    }
    return file_->read(destination, capacity);
  }
  bool compressed() const override { return false; }
  std::uint64_t raw_bytes_read() const override { return file_->total(); }

 private:
  std::unique_ptr<FileDescriptor> file_;
  std::vector<char> prefix_;
  std::size_t prefix_used_ = 0;
};

// zlib inflate over a large input buffer. Concatenated members (bgzip, `cat
// a.gz b.gz`) are read one after another; end of file inside a member and any
// zlib error are reported, never taken for a clean end.
class GzipSource final : public ByteSource {
 public:
  GzipSource(std::unique_ptr<FileDescriptor> file, std::vector<char> prefix)
      : file_(std::move(file)), input_(compressed_buffer_size) {
    std::memcpy(input_.data(), prefix.data(), prefix.size());
    stream_.next_in = reinterpret_cast<Bytef*>(input_.data());
    stream_.avail_in = static_cast<uInt>(prefix.size());
    // 15 + 16: gzip wrapper only (the magic bytes said so).
    if (inflateInit2(&stream_, 15 + 16) != Z_OK) throw SourceError("cannot initialise zlib");
  }
  ~GzipSource() override { inflateEnd(&stream_); }

  std::size_t read(char* destination, std::size_t capacity) override {
    if (finished_ || capacity == 0) return 0;
    stream_.next_out = reinterpret_cast<Bytef*>(destination);
    stream_.avail_out = static_cast<uInt>(std::min<std::size_t>(capacity, UINT32_MAX));
    const uInt out_start = stream_.avail_out;
    while (stream_.avail_out == out_start) {
      if (stream_.avail_in == 0 && !refill()) {
        if (member_open_) throw SourceError("truncated gzip stream (unexpected end of file)");
        finished_ = true;
        break;
      }
      if (!member_open_) {
        // Bytes after a finished member must be another member.
        if (inflateReset(&stream_) != Z_OK) throw SourceError("cannot reset zlib stream");
        member_open_ = true;
      }
      const int status = inflate(&stream_, Z_NO_FLUSH);
      if (status == Z_STREAM_END) {
        member_open_ = false;
      } else if (status != Z_OK && status != Z_BUF_ERROR) {
        throw SourceError(std::string("corrupt gzip stream: ") +
                          (stream_.msg ? stream_.msg : zError(status)));
      }
    }
    return out_start - stream_.avail_out;
  }
  bool compressed() const override { return true; }
  std::uint64_t raw_bytes_read() const override { return file_->total(); }

 private:
  bool refill() {
    const std::size_t n = file_->read(input_.data(), input_.size());
    stream_.next_in = reinterpret_cast<Bytef*>(input_.data());
    stream_.avail_in = static_cast<uInt>(n);
    return n > 0;
  }

  std::unique_ptr<FileDescriptor> file_;
  std::vector<char> input_;
  z_stream stream_{};
  bool member_open_ = true;
  bool finished_ = false;
};

}  // namespace

std::unique_ptr<ByteSource> open_byte_source(const std::string& path) {
  auto file = std::make_unique<FileDescriptor>(path);
  std::vector<char> prefix(2);
  prefix.resize(file->read_fully(prefix.data(), prefix.size()));
  const bool gzip = prefix.size() == 2 && static_cast<unsigned char>(prefix[0]) == 0x1f &&
                    static_cast<unsigned char>(prefix[1]) == 0x8b;
  if (gzip) return std::make_unique<GzipSource>(std::move(file), std::move(prefix));
  return std::make_unique<PlainSource>(std::move(file), std::move(prefix));
}

}  // namespace metawarp::io
