#pragma once
// Where the cutter (record_blocks.hpp) reads an input from. A plain regular
// file is read by several threads at once (pread of parts of one large
// read), and read ahead: the next block's read runs while the cutter finds
// the records of this one (io/cut/block_read_ahead.hpp), so the copy out of
// the page cache and the record scan, each split over threads, overlap
// instead of taking turns (docs/architecture.md, "Cutting reads"). Anything
// else (stdin, pipes, compressed files) is read as open_byte_source() reads
// it, through the decoder detect_compression() chooses, so a faster
// decompressing source plugs in there and the cutter follows. The file is
// opened once either way.
#include <cstddef>
#include <memory>
#include <string>

#include "io/cut/record_scan.hpp"
#include "io/decode/byte_source.hpp"

namespace metawarp::io {

struct CutSource {
  std::unique_ptr<ByteSource> source;
  // The most the cutter should ask for in one read(): large where one call
  // is split over threads, cache-sized otherwise.
  std::size_t max_read_bytes = 0;
  // Threads that find the records in what was read (io/cut/record_scan.hpp):
  // as many as read a plain file, one for a stream.
  ScanThreads scan;
  // Read the next block's bytes while the cutter scans (RecordBlockSplitter):
  // for a plain file, whose reads are large. A stream that decompresses is
  // read ahead by its own source already (open_byte_source()).
  bool read_ahead = false;
};

// Reads of a single-threaded source: small enough to stay in cache while
// being scanned, large enough that the calls cost nothing next to the copying.
inline constexpr std::size_t serial_read_bytes = std::size_t{1} << 20;
// Reads of a plain file split over threads; bounds the bytes read ahead of
// the cut (one such read in flight). A GPU batch's block (65,536 reads of
// 2x150, 21 MB per mate file) is then one read and one record scan, each
// split over the threads, the read of the next block beside the scan.
inline constexpr std::size_t parallel_read_bytes = std::size_t{32} << 20;

// "-" reads stdin. Throws SourceError as open_byte_source() does (same messages).
CutSource open_cut_source(const std::string& path);

// A regular file read with pread: one call of at least 2 parallel parts is
// split into parts read by up to `threads` threads at once. Returns the bytes
// up to the first part that came back short (the end of the file) or failed;
// a failure is thrown by the call that reads at its offset first, so every
// byte before it is returned first, as by a serial read. Takes `fd` (closed
// on destruction).
std::unique_ptr<ByteSource> make_parallel_file_source(int fd, unsigned threads);

}  // namespace metawarp::io
