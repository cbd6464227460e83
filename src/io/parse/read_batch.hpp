#pragma once
// Batches of reads as raw record blocks: one thread cuts them (ReadBlockCutter),
// any thread parses them (parse_read_blocks). Single-end reads, pairs from two
// files (R1, R2) or interleaved pairs. The parse reports the error a serial
// read of the whole input would report first, with the same message, so the
// error does not depend on how the input was cut or which thread parsed it.
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/cut/record_blocks.hpp"
#include "io/parse/record_views.hpp"
#include "io/parse/sequence_reader.hpp"

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

// What parse_read_blocks found: reads [0, count) of mates1 (and mates2 for
// pairs) are valid; `error`, when set, is the InputError that a serial reader
// would have thrown right after them.
struct ParsedReads {
  std::size_t count = 0;
  std::exception_ptr error;
};

// A batch's records as views (io/record_views.hpp) into its blocks: what a
// query worker keeps from batch to batch. The vectors are grown as needed
// and never shrunk; entries past the parse's `count` are spare; mates2 is
// untouched for single reads. The views are valid while the blocks are,
// until the next parse into this.
struct ReadViewBatch {
  std::vector<RecordView> mates1;
  std::vector<RecordView> mates2;
  RecordViewStorage storage1;  // of blocks.first
  RecordViewStorage storage2;  // of blocks.second
};

// Parses a batch cut by ReadBlockCutter into views: no base is copied.
ParsedReads parse_read_views(ReadLayout layout, const ReadBlocks& blocks, ReadViewBatch& batch);

// The same records copied into strings (for callers that keep them past the
// blocks). The vectors are grown as needed and never shrunk, so their
// records' strings keep their capacity from batch to batch; entries past
// `count` are spare. mates2 is untouched for single reads.
ParsedReads parse_read_blocks(ReadLayout layout, const ReadBlocks& blocks,
                              std::vector<SequenceRecord>& mates1,
                              std::vector<SequenceRecord>& mates2);

// True when two read ids name the same fragment ("r1/1" and "r1/2", or equal).
bool mates_match(std::string_view id1, std::string_view id2);

}  // namespace metawarp::io
