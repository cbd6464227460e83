#pragma once
// Batches of reads as raw record blocks, cut by one thread and parsed by any
// (io/parse/read_batch.hpp): single-end reads, pairs from two files (R1, R2)
// or interleaved pairs. Mates stay in step: mates 2's block takes exactly as
// many records as mates 1's, an interleaved block an even number.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/cut/record_blocks.hpp"

namespace metawarp::io {

enum class ReadLayout : std::uint8_t { single, two_files, interleaved };

// The raw records of one batch: single reads or interleaved mates in `first`;
// for two files, mates 1 in `first` and mates 2 in `second`.
struct ReadBlocks {
  RecordBlock first;
  RecordBlock second;
};

class ReadBlockCutter {
 public:
  // One path: single-end reads, or pairs when `interleaved`; two paths: mates
  // 1 and 2. Throws InputError when a file cannot be opened.
  ReadBlockCutter(const std::vector<std::string>& paths, bool interleaved);
  // The same over inputs already opened (tests, fuzzing).
  ReadBlockCutter(std::vector<RecordBlockSplitter> inputs, bool interleaved);

  ReadLayout layout() const { return layout_; }
  bool paired() const { return layout_ != ReadLayout::single; }

  // Cuts the next batch: at most `max_reads` reads (pairs), the mates-1 block
  // (or single/interleaved block) starting no record past `max_bytes`; mates 2
  // get exactly as many records (fewer only where R2 ends early, which the
  // parse reports). False when the input is exhausted or an earlier batch
  // already holds the error that ends it.
  bool next(ReadBlocks& blocks, std::size_t max_reads, std::size_t max_bytes);

  // The two halves of next(), so that two threads can cut (and decompress)
  // R1 and R2 at once: cut_first() cuts blocks.first, cut_second() then cuts
  // blocks.second of the same batch (nothing for one file). Each half is
  // called by one thread at a time, in batch order; cut_second() only for the
  // batches cut_first() returned true for. A false from either means the
  // batch is empty and none follows.
  bool cut_first(ReadBlocks& blocks, std::size_t max_reads, std::size_t max_bytes);
  bool cut_second(ReadBlocks& blocks);

  // Bytes taken so far from the first file (mates 1; compressed bytes for
  // gzip), for progress against its size. Called by the thread that calls
  // cut_first().
  std::uint64_t first_raw_bytes_read() const { return first_.raw_bytes_read(); }
  // The first file is decompressed (its size on disk is not its text's).
  bool first_compressed() const { return first_.compressed(); }

 private:
  ReadLayout layout_;
  RecordBlockSplitter first_;
  std::optional<RecordBlockSplitter> second_;
  bool first_done_ = false;  // cut_first's: no batch follows
  bool done_ = false;        // next()'s: no batch follows
};

}  // namespace metawarp::io
