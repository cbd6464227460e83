#pragma once
// A batch's reads parsed from the raw record blocks ReadBlockCutter cut
// (io/cut/read_block_cutter.hpp), on any thread: single-end reads, pairs from
// two files (R1, R2) or interleaved pairs, the mates' ids checked. The parse
// reports the error a serial read of the whole input would report first, with
// the same message, so the error does not depend on how the input was cut or
// which thread parsed it.
#include <exception>
#include <string_view>
#include <vector>

#include "io/cut/read_block_cutter.hpp"
#include "io/parse/record_views.hpp"
#include "io/parse/sequence_reader.hpp"

namespace metawarp::io {

// What parse_read_blocks found: reads [0, count) of mates1 (and mates2 for
// pairs) are valid; `error`, when set, is the InputError that a serial reader
// would have thrown right after them.
struct ParsedReads {
  std::size_t count = 0;
  std::exception_ptr error;
};

// A batch's records as views (io/parse/record_views.hpp) into its blocks: what a
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
