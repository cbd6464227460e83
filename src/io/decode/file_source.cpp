#include "io/decode/file_source.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace metawarp::io {

FileSource::FileSource(const std::string& path) {
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

FileSource::~FileSource() {
  if (owned_) ::close(fd_);
}

int FileSource::release() {
  owned_ = false;
  return std::exchange(fd_, -1);
}

std::size_t FileSource::read(char* destination, std::size_t capacity) {
  while (true) {
    const ssize_t n = ::read(fd_, destination, capacity);
    if (n >= 0) {
      total_ += static_cast<std::uint64_t>(n);
      return static_cast<std::size_t>(n);
    }
    if (errno != EINTR) throw SourceError(std::string("read error: ") + std::strerror(errno));
  }
}

}  // namespace metawarp::io
