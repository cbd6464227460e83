#include "db/parallel_read.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <vector>

#include <unistd.h>

#include "db/checksum.hpp"
#include "db/file_format.hpp"
#include "metawarp/host/parallel_for.hpp"
#include "metawarp/host/thread_group.hpp"

namespace metawarp::db {

bool pread_all(int fd, void* to, std::size_t n, std::uint64_t offset) {
  auto* dst = static_cast<char*>(to);
  while (n > 0) {
    const ssize_t got = ::pread(fd, dst, n, off_t(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    dst += got;
    n -= std::size_t(got);
    offset += std::uint64_t(got);
  }
  return true;
}

namespace {

// Reads the chunks of [0, n) at `offset` on up to `threads` threads: chunk
// [begin, begin + size) goes to into(begin, size), its checksum64 to
// sums[chunk], then done(begin, bytes, size) sees it, on the reading thread.
template <class Into, class Done>
bool read_chunks(int fd, std::uint64_t offset, std::size_t n, std::span<std::uint64_t> sums,
                 unsigned threads, Into into, Done done) {
  constexpr std::size_t chunk = file_format::checksum_chunk_bytes;
  const std::size_t chunks = std::min(sums.size(), checksum_chunk_count(n));
  const std::size_t parts = threads == 0 ? host::parts_for(chunks, 1)
                                         : std::min<std::size_t>(threads, chunks);
  std::atomic<bool> failed{false};
  host::parallel_ranges(chunks, parts, [&](std::size_t first, std::size_t last) {
    for (std::size_t c = first; c < last && !failed.load(std::memory_order_relaxed); ++c) {
      const std::size_t begin = c * chunk, size = std::min(chunk, n - begin);
      char* to = into(begin, size);
      if (!pread_all(fd, to, size, offset + begin)) {
        failed = true;
        return;
      }
      sums[c] = checksum64(to, size);
      done(begin, to, size);
    }
  });
  return !failed;
}

}  // namespace

bool read_chunk_sums(int fd, std::uint64_t offset, void* dst, std::size_t n,
                     std::span<std::uint64_t> sums, unsigned threads,
                     const ChunkVisitor& on_chunk) {
  auto* out = static_cast<char*>(dst);
  return read_chunks(fd, offset, n, sums, threads,
                     [out](std::size_t begin, std::size_t) { return out + begin; },
                     [&on_chunk](std::size_t begin, const char*, std::size_t size) {
                       if (on_chunk) on_chunk(begin, begin + size);
                     });
}

std::optional<std::uint64_t> read_chunked_through(int fd, std::uint64_t offset, std::size_t n,
                                                  unsigned threads, const ChunkDecoder& decode) {
  std::vector<std::uint64_t> sums(checksum_chunk_count(n));
  const bool read = read_chunks(fd, offset, n, sums, threads,
                                [](std::size_t, std::size_t size) {
                                  thread_local std::vector<char> buffer;
                                  if (buffer.size() < size) buffer.resize(size);
                                  return buffer.data();
                                },
                                decode);
  if (!read) return std::nullopt;
  return combine_chunk_checksums(sums);
}

std::optional<std::uint64_t> read_chunked(int fd, std::uint64_t offset, void* dst, std::size_t n,
                                          unsigned threads, const ChunkVisitor& on_chunk) {
  std::vector<std::uint64_t> sums(checksum_chunk_count(n));
  if (!read_chunk_sums(fd, offset, dst, n, sums, threads, on_chunk)) return std::nullopt;
  return combine_chunk_checksums(sums);
}

std::optional<std::uint64_t> read_and_checksum(int fd, std::uint64_t offset, void* dst,
                                               std::size_t n, std::size_t chunk) {
  auto* out = static_cast<char*>(dst);
  Checksum64 sum;
  host::ThreadGroup summing;  // checksums the previous chunk while this one is read
  for (std::size_t done = 0; done < n; done += chunk) {
    const std::size_t size = std::min(chunk, n - done);
    std::atomic<bool> failed{false};
    host::parallel_ranges(size, host::parts_for(size, std::size_t(8) << 20),
                          [&](std::size_t b, std::size_t e) {
      if (!pread_all(fd, out + done + b, e - b, offset + done + b)) failed = true;
    });
    summing.join();
    if (failed) return std::nullopt;
    if (done + size < n) summing.spawn([&sum, p = out + done, size] { sum.add(p, size); });
  }
  const std::size_t last = n == 0 ? 0 : (n - 1) / chunk * chunk;
  return sum.finish(out + last, n - last);
}

}  // namespace metawarp::db
