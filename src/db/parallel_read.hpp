#pragma once
// Reading a large file section at the speed of the page cache.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>

namespace metawarp::db {

// Format version 2 (chunked checksums): up to `threads` threads (0: all
// cores) each read a contiguous run of checksum chunks straight into dst
// (pread at their own offsets; the first write to each page faults it in,
// on the reading core) and sum each chunk right after reading it, while it
// is in the cache. `on_chunk(begin, end)`, when given, is called on the
// reading thread for each chunk [begin, end) of dst once it is read (to check
// or forward it while it is hot). Returns chunked_checksum() of the n bytes at
// `offset` of the open file `fd`, or nothing when the file ends first or a
// read fails.
// pread() until n bytes at `offset` are in dst (EINTR retried); false when
// the file ends first or a read fails.
bool pread_all(int fd, void* dst, std::size_t n, std::uint64_t offset);

using ChunkVisitor = std::function<void(std::size_t begin, std::size_t end)>;
std::optional<std::uint64_t> read_chunked(int fd, std::uint64_t offset, void* dst, std::size_t n,
                                          unsigned threads = 0, const ChunkVisitor& on_chunk = {});

// read_chunked() without combining: sums[c] = checksum64 of chunk c of the n
// bytes (sums holds checksum_chunk_count(n) entries). For readers that keep
// the chunks' checksums (db/partial_load.hpp). False when the file ends first
// or a read fails.
bool read_chunk_sums(int fd, std::uint64_t offset, void* dst, std::size_t n,
                     std::span<std::uint64_t> sums, unsigned threads = 0,
                     const ChunkVisitor& on_chunk = {});

// read_chunked() for a section stored encoded: each chunk is read into a
// buffer of the reading thread's own and summed, then decode(begin, bytes,
// size) sees it there (valid until decode returns), to decode it into its
// place elsewhere. Returns chunked_checksum() of the n bytes, or nothing when
// the file ends first or a read fails.
using ChunkDecoder = std::function<void(std::size_t begin, const char* bytes, std::size_t size)>;
std::optional<std::uint64_t> read_chunked_through(int fd, std::uint64_t offset, std::size_t n,
                                                  unsigned threads, const ChunkDecoder& decode);

// Format version 1 (one checksum64 per section, a serial chain): all cores
// copy one chunk at once while one more thread checksums the chunk before;
// the checksum bounds the speed. Returns checksum64() of the bytes read.
inline constexpr std::size_t parallel_read_chunk = std::size_t(128) << 20;
// `chunk` must be a positive multiple of 32.
std::optional<std::uint64_t> read_and_checksum(int fd, std::uint64_t offset, void* dst,
                                               std::size_t n,
                                               std::size_t chunk = parallel_read_chunk);

}  // namespace metawarp::db
