#pragma once
// Read pairs from two files (R1, R2) or one interleaved file. Mismatched files
// (different counts or names) are an InputError, never a silent misalignment.
#include <optional>
#include <string>

#include "io/sequence_reader.hpp"

namespace metawarp::io {

class PairedReader {
 public:
  PairedReader(const std::string& path1, const std::string& path2);
  explicit PairedReader(const std::string& interleaved_path);

  // False at the end of input; throws InputError when one mate is missing or
  // the mates' names differ (ignoring a trailing /1, /2 and the description).
  bool next(SequenceRecord& mate1, SequenceRecord& mate2);

 private:
  SequenceReader first_;
  std::optional<SequenceReader> second_;  // empty: interleaved
};

// True when two read ids name the same fragment ("r1/1" and "r1/2", or equal).
bool mates_match(std::string_view id1, std::string_view id2);

}  // namespace metawarp::io
