#pragma once
// Read pairs from two files (R1, R2) or one interleaved file. Mismatched files
// (different counts or names) are an InputError, never a silent misalignment.
// Pair by pair over the batch pieces of parse/read_batch.hpp, which hold the checks.
#include <string>
#include <vector>

#include "io/parse/read_batch.hpp"
#include "io/parse/sequence_reader.hpp"

namespace metawarp::io {

class PairedReader {
 public:
  PairedReader(const std::string& path1, const std::string& path2);
  explicit PairedReader(const std::string& interleaved_path);

  // False at the end of input; throws InputError when one mate is missing or
  // the mates' names differ (ignoring a trailing /1, /2 and the description).
  bool next(SequenceRecord& mate1, SequenceRecord& mate2);

 private:
  ReadBlockCutter cutter_;
  ReadBlocks blocks_;
  std::vector<SequenceRecord> mates1_;
  std::vector<SequenceRecord> mates2_;
  ParsedReads parsed_;     // of blocks_
  std::size_t next_ = 0;   // the next pair of parsed_ to hand out
};

}  // namespace metawarp::io
