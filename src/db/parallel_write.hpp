#pragma once
// Writing a large file section at the speed of the page cache: the writing
// counterpart of parallel_read.hpp for format version 2 on.
#include <cstddef>
#include <cstdint>
#include <functional>

#include "output/atomic_file.hpp"

namespace metawarp::db {

// Bytes [begin, begin + size) of a section (one checksum chunk): returns where
// they are, in memory already or encoded into `scratch` (size bytes, the
// calling thread's own). `worker`: the calling thread's number (0 .. threads
// - 1; one thread at a time each), for a source that keeps buffers of its
// own per thread (the GPU build's index, copied down as it is written).
using ChunkSource = std::function<const char*(unsigned worker, std::uint64_t begin,
                                              std::size_t size, char* scratch)>;

// Writes the n bytes of a section that `source` gives at `offset` of `file`:
// up to `threads` threads (0: all cores) each take a contiguous run of
// checksum chunks, get each chunk from `source`, sum it and write it right
// after (while it is in the cache). Returns chunked_checksum() of the bytes;
// throws what AtomicFile::write_at (or `source`) throws.
std::uint64_t write_chunked(const output::AtomicFile& file, std::uint64_t offset, std::size_t n,
                            unsigned threads, const ChunkSource& source);
// The same for n bytes in memory at `data`.
std::uint64_t write_chunked(const output::AtomicFile& file, std::uint64_t offset,
                            const void* data, std::size_t n, unsigned threads = 0);

}  // namespace metawarp::db
