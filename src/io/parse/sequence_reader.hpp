#pragma once
// FASTA/FASTQ reader, plain or gzip (detected from content), from a file or
// stdin ("-"). Every problem is an InputError naming file, record and problem:
//   "reads.fq: record 3: quality length 98 differs from sequence length 100 (line 12)"
// stdin is called "<stdin>" in messages. Blank lines are not data; an empty
// input is zero records, not an error. FASTQ records are 4 lines. Lines
// are held to the limits of io/cut/line_limits.hpp. A problem after the last
// record (bytes after the end of a gzip stream) names no record:
//   "reads.fq.gz: unexpected data after the end of the gzip stream (at compressed byte 5012)"
// A reader can also parse one block cut by RecordBlockSplitter (record_blocks.hpp);
// its records, and its messages, carry their numbers in the whole file.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "io/cut/input_error.hpp"
#include "io/cut/record_format.hpp"

namespace metawarp::io {

struct RecordBlock;

struct SequenceRecord {
  std::string header;    // the whole header line after '>' or '@' (no line end)
  std::string sequence;  // bases as read, line breaks and CR removed
  std::string quality;   // FASTQ only; empty for FASTA
  std::uint64_t number = 0;  // 1-based record number in its file

  // The id: header up to the first whitespace.
  std::string_view id() const;
};

class ByteSource;

class SequenceReader {
 public:
  explicit SequenceReader(const std::string& path);  // "-" reads stdin
  // Reads `source` (tests, fuzzing); messages call it `display_name`.
  SequenceReader(std::unique_ptr<ByteSource> source, std::string display_name);
  // Parses `block` in place (it must outlive the reader); path() is the
  // block's display name.
  explicit SequenceReader(const RecordBlock& block);
  ~SequenceReader();
  SequenceReader(SequenceReader&&) noexcept;
  SequenceReader& operator=(SequenceReader&&) noexcept;

  // False at the end of input. Throws InputError on bad input.
  bool next(SequenceRecord& record);
  // Appends records until `max_records` or `max_bases` is reached (at least one
  // record if any is left); returns the number appended.
  std::size_t next_batch(std::vector<SequenceRecord>& out, std::size_t max_records,
                         std::size_t max_bases);

  const std::string& path() const;
  Format format() const;                // known after the first record
  std::uint64_t records_read() const;   // a block's: counting the records before it
  std::uint64_t bytes_consumed() const; // uncompressed bytes parsed so far (of a block: in it)

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Files given on the command line: directories are searched recursively for
// sequence files (.fa .fna .fasta .ffn .frn .fq .fastq, optionally .gz, any
// case), sorted by path so the database does not depend on directory listing
// order. Files named directly are kept whatever their extension, "-" too.
// A missing path, or a directory without sequence files, is an InputError.
std::vector<std::string> expand_inputs(const std::vector<std::string>& paths);

}  // namespace metawarp::io
