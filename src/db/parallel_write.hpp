#pragma once
// Writing a large file section at the speed of the page cache: the writing
// counterpart of parallel_read.hpp for format version 2.
#include <cstddef>
#include <cstdint>

#include "output/atomic_file.hpp"

namespace metawarp::db {

// Writes the n bytes at `data` at `offset` of `file`: up to `threads` threads
// (0: all cores) each take a contiguous run of checksum chunks, sum each chunk
// and write it right after (while it is in the cache). Returns
// chunked_checksum() of the bytes; throws what AtomicFile::write_at throws.
std::uint64_t write_chunked(const output::AtomicFile& file, std::uint64_t offset,
                            const void* data, std::size_t n, unsigned threads = 0);

}  // namespace metawarp::db
