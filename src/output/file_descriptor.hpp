#pragma once
// Owns a POSIX file descriptor: closed by the destructor unless close() was
// called, which reports the close's error (a write error may show only there).
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace metawarp::output {

class FileDescriptor {
 public:
  FileDescriptor() = default;
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(FileDescriptor&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  FileDescriptor& operator=(FileDescriptor&& other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }

  bool is_open() const { return fd_ >= 0; }
  int get() const { return fd_; }
  // 0, or the errno of a failed close; the descriptor is released either way.
  int close() {
    const int fd = std::exchange(fd_, -1);
    return fd < 0 || ::close(fd) == 0 ? 0 : errno;
  }

 private:
  int fd_ = -1;
};

}  // namespace metawarp::output
