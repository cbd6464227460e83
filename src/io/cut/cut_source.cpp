#include "io/cut/cut_source.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <vector>

#include "io/decode/byte_format.hpp"
#include "io/decode/file_source.hpp"
#include "metawarp/host/cores.hpp"
#include "metawarp/host/parallel_for.hpp"

namespace metawarp::io {
namespace {

// Parts of one parallel read: large enough that starting a thread costs
// little next to copying it (about 20 us against 200 us for 1 MiB at 5 GB/s).
constexpr std::size_t part_bytes = std::size_t{2} << 20;
// Threads per file: two files are read at once, beside the workers.
constexpr unsigned max_read_threads = 4;

class ParallelFileSource final : public ByteSource {
 public:
  ParallelFileSource(int fd, unsigned threads) : fd_(fd), threads_(std::max(1u, threads)) {
#ifdef POSIX_FADV_SEQUENTIAL
    ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  }
  ~ParallelFileSource() override { ::close(fd_); }
  ParallelFileSource(const ParallelFileSource&) = delete;
  ParallelFileSource& operator=(const ParallelFileSource&) = delete;

  std::size_t read(char* destination, std::size_t capacity) override {
    const std::size_t parts = std::min<std::size_t>(threads_, capacity / part_bytes);
    if (parts < 2) return read_part(destination, capacity, offset_, /*throw_error=*/true).bytes;
    std::vector<Part> results(parts);
    host::parallel_ranges(parts, parts, [&](std::size_t begin, std::size_t end) {
      for (std::size_t p = begin; p < end; ++p) {
        const std::size_t from = capacity * p / parts;
        const std::size_t size = capacity * (p + 1) / parts - from;
        results[p] = read_part(destination + from, size, offset_ + from, /*throw_error=*/false);
        results[p].wanted = size;
      }
    });
    // The bytes before the first short or failed part; a failure at the
    // very start is thrown now (by reading there serially, for its message).
    std::size_t got = 0;
    for (const Part& part : results) {
      got += part.bytes;
      if (part.failed || part.bytes < part.wanted) break;
    }
    if (got == 0 && results[0].failed) return read_part(destination, capacity, offset_, true).bytes;
    offset_ += got;
    return got;
  }
  bool compressed() const override { return false; }
  std::uint64_t raw_bytes_read() const override { return offset_; }

 private:
  struct Part {
    std::size_t bytes = 0;
    std::size_t wanted = 0;
    bool failed = false;
  };

  // Up to `size` bytes at `offset`: all of them unless the file ends first
  // or reading fails (thrown when `throw_error` and nothing was read).
  Part read_part(char* destination, std::size_t size, std::uint64_t offset, bool throw_error) {
    Part part;
    while (part.bytes < size) {
      const ssize_t n = ::pread(fd_, destination + part.bytes, size - part.bytes,
                                off_t(offset + part.bytes));
      if (n > 0) {
        part.bytes += std::size_t(n);
        continue;
      }
      if (n == 0) break;
      if (errno == EINTR) continue;
      if (throw_error && part.bytes == 0) throw SourceError(std::string("read error: ") + std::strerror(errno));
      part.failed = true;
      break;
    }
    if (throw_error) offset_ += part.bytes;
    return part;
  }

  int fd_;
  unsigned threads_;
  std::uint64_t offset_ = 0;
};

// A regular file of plain text large enough to gain from parallel reads:
// its size says so (files whose size says nothing, /proc, are read as a
// stream), and its first bytes, read with pread, leave the descriptor's
// position at the start for the stream that reads it otherwise.
bool large_plain_file(int fd) {
  struct stat status {};
  if (::fstat(fd, &status) != 0 || !S_ISREG(status.st_mode) ||
      std::uint64_t(status.st_size) < 2 * part_bytes)
    return false;
  char prefix[format_prefix_bytes];
  ssize_t n = 0;
  do n = ::pread(fd, prefix, sizeof prefix, 0);
  while (n < 0 && errno == EINTR);
  // A read error is the stream's to report, in its words.
  return n >= 0 && detect_format(std::string_view(prefix, std::size_t(n))) == ByteFormat::plain;
}

unsigned read_threads() {
  return std::clamp(host::usable_cores() / 4, 1u, max_read_threads);
}

}  // namespace

std::unique_ptr<ByteSource> make_parallel_file_source(int fd, unsigned threads) {
  return std::make_unique<ParallelFileSource>(fd, threads);
}

CutSource open_cut_source(const std::string& path) {
  // Opened once: what is learnt about the file (its size, its format) comes
  // from this descriptor, which then reads it one way or the other.
  auto file = std::make_unique<FileSource>(path);
  const unsigned threads = read_threads();
  if (path != "-" && threads >= 2 && large_plain_file(file->descriptor()))
    return CutSource{make_parallel_file_source(file->release(), threads), parallel_read_bytes,
                     ScanThreads{threads}, /*read_ahead=*/true};
  return CutSource{detect_compression(std::move(file), reader_decode_options()), serial_read_bytes, {}, false};
}

}  // namespace metawarp::io
