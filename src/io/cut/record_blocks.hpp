#pragma once
// Cuts a FASTA/FASTQ input into blocks of whole records without parsing them,
// so that one thread can feed many parsers. The splitter only finds where
// records start (a line-end mask 64 bytes at a time, io/cut/newline_scanner.hpp;
// a plain file is read by several threads, io/cut/cut_source.hpp, see
// docs/architecture.md "Cutting reads"); every check of the content is left
// to SequenceReader, which parses a block with the file's record and line
// numbers, so its messages are those of a serial read of the whole file.
//
// Record boundaries are those of SequenceReader: the first non-blank byte
// decides the format; a FASTQ record is the 4 lines after any blank lines, a
// FASTA record runs until the next line starting with '>'. Lines are held to
// the limits of io/cut/line_limits.hpp, as SequenceReader holds them: a line
// that it would reject before reading its end ends the cutting there.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "io/cut/block_read_ahead.hpp"
#include "io/cut/cut_source.hpp"
#include "io/cut/line_limits.hpp"
#include "io/cut/record_format.hpp"
#include "io/cut/record_scan.hpp"
#include "io/decode/byte_buffer.hpp"
#include "io/decode/byte_source.hpp"

namespace metawarp::io {

// Raw bytes of consecutive whole records of one file, and where they sit in it.
struct RecordBlock {
  std::string display_name;         // what messages call the file ("<stdin>" for "-")
  Format format = Format::unknown;  // unknown: the input is empty or not FASTA/FASTQ
  std::uint64_t first_record = 1;   // 1-based number of its first record in the file
  std::uint64_t first_line = 1;     // 1-based number of its first line in the file
  std::size_t records = 0;          // records starting in it (the last may be truncated)
  ByteBuffer bytes;
  // Reading the input failed right after these bytes; parsing the block
  // ends with that error.
  std::optional<SourceError> read_error;
  // The block ends inside a line that judge_partial_line() rejects (too
  // long, or garbage): parsing it ends with the error SequenceReader gives
  // that line, and nothing after it is cut.
  bool cut_inside_line = false;

  // Nothing to parse: the input had ended (blank lines at most).
  bool empty() const { return records == 0 && !read_error; }
  // Parsing the block surely ends in an error, and no block follows it.
  bool ends_input_early() const { return read_error.has_value() || cut_inside_line; }
};

class RecordBlockSplitter {
 public:
  static constexpr std::size_t no_byte_limit = std::numeric_limits<std::size_t>::max();

  // "-" reads stdin. Throws InputError (record 0) when the input cannot be opened.
  explicit RecordBlockSplitter(const std::string& path);
  // `max_read_bytes`: the most asked of `source` in one read() (a source that
  // splits a read over threads wants large ones, io/cut/cut_source.hpp).
  // `scan`: the threads that find the records in what was read (the blocks
  // are the same whatever they are, io/cut/record_scan.hpp). `read_ahead`: the
  // next block's bytes are read on a thread of their own while this block's
  // records are found and the caller goes on (io/cut/block_read_ahead.hpp); the
  // blocks are the same but where a line is rejected before its end was
  // read (the cut ends where the read did, as with other read sizes).
  // `source` is then read on that thread (its compressed() may be called
  // meanwhile).
  RecordBlockSplitter(std::unique_ptr<ByteSource> source, std::string display_name,
                      std::size_t max_read_bytes = serial_read_bytes, ScanThreads scan = {},
                      bool read_ahead = false);
  RecordBlockSplitter(RecordBlockSplitter&&) = default;
  // Not assignable: assigning would free the source before a read ahead of
  // it in flight ended.
  RecordBlockSplitter& operator=(RecordBlockSplitter&&) = delete;

  // Cuts the next block: at most `max_records` records, and no record starts
  // once the block holds `max_bytes` bytes (one record at least, if any is
  // left); with RecordCount::even, one more record where that left an odd
  // count (an interleaved batch made even), as extend_block(block, 1) would.
  // An empty() block means the input has ended. After a read error or a
  // rejected line the block says so (ends_input_early()) and later blocks
  // are empty. Reading ahead, the block's buffer may be swapped for the one
  // read into (the one `block` held is read into next).
  enum class RecordCount : bool { any, even };
  void next_block(RecordBlock& block, std::size_t max_records,
                  std::size_t max_bytes = no_byte_limit, RecordCount count = RecordCount::any);
  // Appends up to `more_records` records to `block`, which must be the block
  // this splitter cut last. Reading ahead, the bytes it takes are copied from
  // the next block's read: RecordCount::even makes a block even as cheaply.
  void extend_block(RecordBlock& block, std::size_t more_records);

  const std::string& display_name() const { return display_name_; }
  // The input is decompressed (its raw bytes are not its text).
  bool compressed() const { return source_->compressed(); }
  // True once the whole input (or everything up to a read error) was handed out.
  bool exhausted() const { return at_end_ && carry_.empty(); }
  // Bytes taken from the file or pipe so far (compressed bytes for gzip): a
  // progress line compares them with the file's size. A read ahead in flight
  // is not counted yet.
  std::uint64_t raw_bytes_read() const {
    return ahead_ ? ahead_->raw_bytes_read() : source_->raw_bytes_read();
  }

 private:
  // Scans `block` from its end (a record boundary) and cuts it at the record
  // boundary where a limit is reached, or at the end of the input.
  void fill(RecordBlock& block, std::uint64_t record_limit, std::size_t byte_limit);
  // Reads more input onto the end of the block; false at the end of input or
  // on a read error (then noted in the block).
  bool read_more(RecordBlock& block);
  // Makes `count` bytes from `pos` available; false when the input ends first.
  bool ensure(RecordBlock& block, std::size_t pos, std::size_t count);
  // Moves `pos` past the end of the line of `kind` starting there; false
  // when the input ends inside the line, or the line is rejected before its
  // end (then the block is cut there): `pos` is then the end of the block.
  bool skip_line(RecordBlock& block, std::size_t& pos, LineKind kind);
  // Moves `pos` past blank lines (empty, or a lone '\r'); false at the end of input.
  bool skip_blank_lines(RecordBlock& block, std::size_t& pos);
  // Moves `pos` past the whole records (FASTQ: and the blank lines before
  // them) that lie in the bytes read so far, up to the limits, counting them
  // in the block; what skip_blank_lines() and skip_record() do, without
  // reading, on scanner_'s threads. False when not one record was whole.
  bool skip_read_records(RecordBlock& block, std::size_t& pos, std::uint64_t record_limit,
                         std::size_t byte_limit);
  // Moves `pos` past the record starting there; false when the input ends in or right after it.
  bool skip_record(RecordBlock& block, std::size_t& pos);
  // On the first block: moves `pos` past leading blank lines and sets format_
  // from the first non-blank line.
  void detect_format(RecordBlock& block, std::size_t& pos);
  // How much to read next into a block that holds `records` records (the
  // last may be partly read) in `bytes` bytes: about what the block still
  // needs, so that little is read past the cut and copied again into the
  // next block.
  std::size_t read_size(std::uint64_t records, std::size_t bytes) const;
  // The block's expected size in bytes (`start`: its bytes before this fill,
  // holding `records` records), to reserve at once: growing a block of tens
  // of megabytes step by step would copy it about twice. 0: no record size
  // known yet.
  std::size_t expected_size(std::size_t start, std::uint64_t records) const;
  // Puts the carry at the end of the block, reserving its expected size; or,
  // into a new block (`start` 0), the carry and the bytes read ahead after
  // it (then true).
  bool take_carry(RecordBlock& block, std::size_t start);
  // Starts reading the next block's bytes, if reading ahead and nothing is
  // read or held: what `blocks` blocks (this one and the next, or the next)
  // need past the `held` bytes they have.
  void start_read_ahead(std::size_t held, std::size_t blocks);
  // One read: through the read ahead, if any, else from the source.
  std::size_t read_source(char* destination, std::size_t capacity);

  std::unique_ptr<ByteSource> source_;
  std::size_t max_read_size_ = serial_read_bytes;  // what one read() may ask for
  WholeRecordScanner scanner_;
  std::string display_name_;
  Format format_ = Format::unknown;
  bool format_known_ = false;  // detection ran (format_ may still be unknown)
  bool at_end_ = false;        // end of input, read error or undecidable format reached
  ByteBuffer carry_;           // bytes read past the last cut: the next block's start
  std::uint64_t records_done_ = 0;  // records in the blocks cut before this fill
  std::uint64_t bytes_done_ = 0;    // and their bytes (for read_size())
  std::uint64_t lines_done_ = 0;    // line ends scanned so far
  // The limits of the fill in progress, for read_size().
  std::uint64_t record_limit_ = 0;
  std::size_t byte_limit_ = no_byte_limit;
  bool read_ahead_ = false;
  // Reading ahead: made at the first read ahead. Last: destroyed first, so
  // that a read in flight ends before its source goes.
  std::unique_ptr<BlockReadAhead> ahead_;
};

}  // namespace metawarp::io
