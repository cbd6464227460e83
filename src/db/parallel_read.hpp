#pragma once
// Reading a large file section at the speed of the page cache: all cores copy
// one chunk at once (pread at their own offsets) while one more thread
// checksums the chunk before, so that loading is bound by the checksum, not by
// one thread copying.
#include <cstddef>
#include <cstdint>
#include <optional>

namespace metawarp::db {

inline constexpr std::size_t parallel_read_chunk = std::size_t(128) << 20;

// Reads n bytes at `offset` of the open file `fd` into dst; returns
// checksum64() of them, or nothing when the file ends first or a read fails.
// `chunk` must be a positive multiple of 32.
std::optional<std::uint64_t> read_and_checksum(int fd, std::uint64_t offset, void* dst,
                                               std::size_t n,
                                               std::size_t chunk = parallel_read_chunk);

}  // namespace metawarp::db
