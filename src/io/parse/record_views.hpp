#pragma once
// The records of a block cut by RecordBlockSplitter (record_blocks.hpp) as
// views into the block's bytes: the query's parse, which copies no bases.
//
// The records, and the error that ends them, are exactly SequenceReader's
// over the same block (tests/io/test_record_views.cpp): a fast path takes the
// records it can prove well formed (every line ended by '\n', no blank line,
// every check of SequenceReader passed) and hands the block to SequenceReader
// itself at the first record it cannot: blank lines, any bad input, a block
// that ends in a read error or inside a line. So every rule that decides a
// record or names a problem stays written once, in sequence_reader.cpp; the
// fast path only decides when it may skip it.
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>

#include "io/cut/newline_scanner.hpp"
#include "io/cut/record_blocks.hpp"
#include "io/cut/text_checks.hpp"
#include "io/parse/sequence_reader.hpp"

namespace metawarp::io {

struct RecordView {
  std::string_view header;    // the header line after '>' or '@' (no line end)
  std::string_view sequence;  // bases as read (a FASTA record of several lines: joined)
  std::string_view quality;   // FASTQ only; empty for FASTA
  std::uint64_t number = 0;   // 1-based record number in its file

  // The id: header up to the first whitespace (as SequenceRecord::id()).
  std::string_view id() const { return header_id(header); }
};

// What a block's views may point into besides the block: the joined lines
// of FASTA sequences, and records that SequenceReader parsed. One per block
// being read; cleared when a reader starts on it, so it keeps its capacity.
class RecordViewStorage {
 public:
  void clear() {
    joined_.clear();
    parsed_.clear();
  }

 private:
  friend class BlockRecordReader;
  std::string joined_;                  // reserved once per block: its views stay valid
  std::deque<SequenceRecord> parsed_;   // a deque: growing it moves no record
};

class BlockRecordReader {
 public:
  // `block` and `storage` must outlive the reader and the views it returns.
  BlockRecordReader(const RecordBlock& block, RecordViewStorage& storage);

  // The block's next record: false at its end. Throws InputError where
  // SequenceReader(block).next() throws it, with its message.
  bool next(RecordView& record);

 private:
  bool next_fastq(RecordView& record);
  bool next_fasta(RecordView& record);
  // The rest of the block from SequenceReader, from the record after those
  // returned so far.
  bool next_from_reference(RecordView& record);
  // The line starting at `from`: its content (no '\n', no trailing '\r')
  // and where the line after it starts; false when no '\n' ends it in the block.
  bool line_at(const char* from, std::string_view& line, const char*& after);

  const RecordBlock& block_;
  RecordViewStorage& storage_;
  const char* begin_;  // the block's bytes
  const char* pos_;    // the first byte after the records returned
  const char* end_;
  NewlineScanner scanner_;  // the block's line ends
  bool fast_ = true;        // false: SequenceReader reads the rest
  std::uint64_t returned_ = 0;
  std::optional<SequenceReader> reference_;  // once the fast path gave up
};

}  // namespace metawarp::io
