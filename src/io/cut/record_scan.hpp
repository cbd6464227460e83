#pragma once
// Finds the whole records in bytes the cutter (record_blocks.hpp) has read
// already, on several threads at once: the record boundaries of one file are
// what bounds one cutting thread on uncompressed reads once reading is done
// by several threads (docs/architecture.md, "Cutting reads").
//
// The answer is that of a serial scan from the first byte, whatever the
// threads and piece sizes. FASTA needs no guess: a record ends where a line
// starts with '>'. A FASTQ record is the four lines after any blank lines, so
// the role of a line depends on every line before it; a piece therefore
// starts at a guessed record start (a line starting with '@' whose second
// line after starts with '+'; a quality line may start with '@', but then
// the line two after it is a sequence) and the guess is checked: the piece
// before it, scanned from a known boundary, must reach exactly that start.
// Where it does not (only on input that is not well-formed FASTQ), the piece
// is scanned again from where the piece before it ended. The scan of a
// boundary onwards depends on nothing before it, so the result is exact.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "io/cut/record_format.hpp"

namespace metawarp::io {

// Threads that scan one buffer; one piece per thread, no smaller than
// `min_piece_bytes` (a smaller buffer is scanned by fewer threads).
struct ScanThreads {
  unsigned threads = 1;
  // About 0.2 ms of scanning (~10 GB/s on one thread): starting a thread
  // costs a tenth of it; as large as the parallel reads' parts
  // (cut_source.cpp), so a read split over N threads is scanned by N.
  std::size_t min_piece_bytes = std::size_t{2} << 20;
};

// Where the splitter stands and what it may still take, as its cutting loop
// checks it before each record: a record is taken while the block holds
// fewer than `record_limit` records and, once it holds one, ends before
// `byte_limit`.
struct ScanLimits {
  std::uint64_t records_in_block = 0;
  std::uint64_t record_limit = 0;
  std::size_t byte_limit = 0;
};

// The records taken: they end at `end`; `lines` line ends lie in [from, end).
struct WholeRecords {
  std::size_t end = 0;
  std::uint64_t records = 0;
  std::uint64_t lines = 0;
};

class WholeRecordScanner {
 public:
  explicit WholeRecordScanner(ScanThreads threads = {});

  // The whole records of data[from, size) up to the limits, `from` being a
  // record boundary. FASTQ: the blank lines before a record and its four
  // lines, all ending in the buffer; a '\r' as the last byte is undecided.
  // FASTA (data[from] must be '>'): a record ends where the next line that
  // starts with '>' starts, that '>' read. What is not whole is left to the
  // splitter's reading path, which judges lines whose end is not read yet.
  WholeRecords scan(Format format, const char* data, std::size_t size, std::size_t from,
                    const ScanLimits& limits);

  const ScanThreads& threads() const { return threads_; }

 private:
  // One piece's records, from `begin` until a record would start at or after
  // `stop` (then `next_start` is that start, after `blanks_before_next`
  // blank lines) or the buffer holds no more whole record (`stopped`).
  struct Piece {
    std::size_t begin = 0;
    std::size_t stop = 0;
    std::vector<std::size_t> ends;     // of each record
    std::vector<std::uint64_t> lines;  // line ends from `begin` to each record's end
    std::size_t next_start = 0;
    std::uint64_t blanks_before_next = 0;
    std::uint64_t lines_to_stop = 0;   // FASTA: line ends in [begin, stop)
    bool stopped = false;
  };

  void scan_fastq_piece(Piece& piece, const char* data, std::size_t size) const;
  void scan_fasta_piece(Piece& piece, const char* data, std::size_t size, bool last) const;
  // Splits [from, size) into pieces and scans them, on threads_ threads.
  std::size_t scan_pieces(Format format, const char* data, std::size_t size, std::size_t from);

  ScanThreads threads_;
  std::vector<Piece> pieces_;  // kept from call to call, with their vectors' capacity
};

}  // namespace metawarp::io
