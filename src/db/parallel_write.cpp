#include "db/parallel_write.hpp"

#include <algorithm>
#include <memory>
#include <vector>

#include "db/checksum.hpp"
#include "db/file_format.hpp"
#include "metawarp/host/parallel_for.hpp"

namespace metawarp::db {

std::uint64_t write_chunked(const output::AtomicFile& file, std::uint64_t offset, std::size_t n,
                            unsigned threads, const ChunkSource& source) {
  constexpr std::size_t chunk = file_format::checksum_chunk_bytes;
  std::vector<std::uint64_t> sums(checksum_chunk_count(n));
  const std::size_t parts = threads == 0 ? host::parts_for(sums.size(), 1)
                                         : std::min<std::size_t>(threads, sums.size());
  // Part p is a contiguous run of chunks. A failed write throws;
  // parallel_for rethrows the first failure once every part has stopped.
  host::parallel_for(parts, unsigned(parts), [&](std::size_t p, unsigned worker) {
    const std::size_t first = sums.size() * p / parts, last = sums.size() * (p + 1) / parts;
    std::unique_ptr<char[]> scratch;  // allocated (uninitialised) on first use
    for (std::size_t c = first; c < last; ++c) {
      const std::size_t begin = c * chunk, size = std::min(chunk, n - begin);
      if (!scratch) scratch.reset(new char[chunk]);
      const char* bytes = source(worker, begin, size, scratch.get());
      sums[c] = checksum64(bytes, size);
      file.write_at(offset + begin, bytes, size);
    }
  });
  return combine_chunk_checksums(sums);
}

std::uint64_t write_chunked(const output::AtomicFile& file, std::uint64_t offset,
                            const void* data, std::size_t n, unsigned threads) {
  const auto* in = static_cast<const char*>(data);
  return write_chunked(
      file, offset, n, threads,
      [in](unsigned, std::uint64_t begin, std::size_t, char*) { return in + begin; });
}

}  // namespace metawarp::db
