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

bool read_chunk_sums(int fd, std::uint64_t offset, void* dst, std::size_t n,
                     std::span<std::uint64_t> sums, unsigned threads,
                     const ChunkVisitor& on_chunk) {
  constexpr std::size_t chunk = file_format::checksum_chunk_bytes;
  auto* out = static_cast<char*>(dst);
  const std::size_t chunks = std::min(sums.size(), checksum_chunk_count(n));
  const std::size_t parts = threads == 0 ? host::parts_for(chunks, 1)
                                         : std::min<std::size_t>(threads, chunks);
  std::atomic<bool> failed{false};
  host::parallel_ranges(chunks, parts, [&](std::size_t first, std::size_t last) {
    for (std::size_t c = first; c < last && !failed.load(std::memory_order_relaxed); ++c) {
      const std::size_t begin = c * chunk, size = std::min(chunk, n - begin);
      if (!pread_all(fd, out + begin, size, offset + begin)) {
        failed = true;
        return;
      }
      sums[c] = checksum64(out + begin, size);
      if (on_chunk) on_chunk(begin, begin + size);
    }
  });
  return !failed;
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
