#pragma once
// --classified-out / --unclassified-out (Kraken2's options): the reads
// themselves, each record written exactly as it was read (header, sequence
// and quality lines, their line ends, FASTA line breaks), in input order.
//
// Paths follow Kraken2's '#' convention for pairs: "out#.fq" names
// "out_1.fq" (mates 1) and "out_2.fq" (mates 2), for two reads files and for
// interleaved pairs alike. Pairs need the '#'; single-end reads refuse it
// (there is no mate number to put there), except on Kraken2's command line,
// where it stays in the name as Kraken2 leaves it. A path ending in ".gz"
// is written gzip-compressed. Every path is a query output like the others
// (checked with them, atomic, removed when the query fails).
//
// On Kraken2's command line (QueryOptions::kraken2_read_outputs) a classified
// record's header line gets Kraken2's " kraken:taxid|N" at its end (before
// its line end), both mates'; the rest of the record stays as read.
#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "io/cut/record_blocks.hpp"
#include "pipeline/query/query_output.hpp"
#include "taxonomy/taxonomy.hpp"

namespace metawarp::pipeline {

// The file(s) a --classified-out/--unclassified-out path names: one for
// single-end reads, mates 1 and 2 for pairs. Throws std::invalid_argument
// (naming `option`) when a pair's path has no '#' or more than one, or a
// single-end path has one (unless `kraken2`: then it is a plain character).
std::vector<std::string> mate_paths(const std::string& path, bool paired,
                                    const std::string& option, bool kraken2 = false);

// Appends to `records` the raw text of each record of `block`, from its
// '@'/'>' to the end of its last line (line end included when there is one;
// blank lines between records are left out). The block must have parsed
// without error: its records' boundaries are those SequenceReader found.
void record_texts(const io::RecordBlock& block, std::vector<std::string_view>& records);

// Appends one record's text to `out`, `header_suffix` at the end of its
// header line (before the line end); a last line without its line end (the
// input's last record) gets '\n', so the next record starts a line.
void append_record(std::string& out, std::string_view record,
                   std::string_view header_suffix = {});

// Kraken2's tag for the header of a read classified as `taxid`.
std::string kraken2_header_tag(taxonomy::taxid_t taxid);

// One reads output file: plain, or gzip when the path ends in ".gz".
class SequenceOutput {
 public:
  SequenceOutput() = default;
  explicit SequenceOutput(const std::string& path);
  ~SequenceOutput();
  SequenceOutput(SequenceOutput&&) noexcept;
  SequenceOutput& operator=(SequenceOutput&&) noexcept;

  bool enabled() const { return file_ && file_->enabled(); }
  // Whole records' text (append_record's).
  void write(std::string_view text);
  // Writes what is buffered (and the gzip trailer), then commits the file.
  void close();

 private:
  struct Gzip;
  void flush(bool finish);

  std::unique_ptr<OutputFile> file_;
  std::unique_ptr<Gzip> gzip_;  // set for ".gz" paths
  std::string pending_;         // text not yet compressed or written
};

// The classified and unclassified reads files of a query, mates 1 and 2.
struct ReadOutputs {
  std::array<SequenceOutput, 2> classified;
  std::array<SequenceOutput, 2> unclassified;

  ReadOutputs() = default;
  // `kraken2`: the paths read as mate_paths reads them on Kraken2's command line.
  ReadOutputs(const std::string& classified_path, const std::string& unclassified_path,
              bool paired, bool kraken2);
  bool enabled() const { return classified[0].enabled() || unclassified[0].enabled(); }
  void close();
};

}  // namespace metawarp::pipeline
