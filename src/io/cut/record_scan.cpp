#include "io/cut/record_scan.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#include "io/cut/newline_scanner.hpp"
#include "metawarp/host/parallel_for.hpp"

namespace metawarp::io {
namespace {

constexpr std::size_t npos = std::numeric_limits<std::size_t>::max();

// The position after the line ends starting at `at` as far as they are
// blank lines for SequenceReader (empty once one trailing '\r' is removed),
// and how many. A "\r" that is the buffer's last byte is not skipped.
std::size_t skip_blank_lines(const char* data, std::size_t size, std::size_t at, std::uint64_t& blanks) {
  while (at < size) {
    if (data[at] == '\n') {
      at += 1;
    } else if (data[at] == '\r' && at + 1 < size && data[at + 1] == '\n') {
      at += 2;
    } else {
      break;
    }
    ++blanks;
  }
  return at;
}

// The first line start in [from, limit) that looks like a FASTQ record's
// start: '@', and the line two after it starts with '+' (all read). `from`
// > 0. npos when there is none.
std::size_t guess_fastq_start(const char* data, std::size_t size, std::size_t from, std::size_t limit) {
  NewlineScanner newlines(data, size);
  std::size_t line = from;
  if (data[from - 1] != '\n') {
    const std::size_t end = newlines.find(from);
    if (end == NewlineScanner::npos) return npos;
    line = end + 1;
  }
  while (line < limit) {
    const std::size_t end1 = newlines.find(line);
    if (end1 == NewlineScanner::npos) return npos;
    if (data[line] == '@') {
      const std::size_t end2 = newlines.find(end1 + 1);
      if (end2 == NewlineScanner::npos) return npos;
      if (end2 + 1 < size && data[end2 + 1] == '+') return line;
    }
    line = end1 + 1;
  }
  return npos;
}

}  // namespace

WholeRecordScanner::WholeRecordScanner(ScanThreads threads) : threads_(threads) {
  threads_.threads = std::max(1u, threads_.threads);
  threads_.min_piece_bytes = std::max<std::size_t>(1, threads_.min_piece_bytes);
}

void WholeRecordScanner::scan_fastq_piece(Piece& piece, const char* data, std::size_t size) const {
  // The rule of skip_blank_lines() and skip_record() in record_blocks.cpp for
  // the bytes read: blank lines, then four lines, each ending here.
  NewlineScanner newlines(data, size);
  piece.ends.clear();
  piece.lines.clear();
  piece.stopped = false;
  std::size_t at = piece.begin;
  std::uint64_t lines = 0;
  while (true) {
    std::uint64_t blanks = 0;
    const std::size_t start = skip_blank_lines(data, size, at, blanks);
    if (start >= size || (data[start] == '\r' && start + 1 == size)) break;
    if (start >= piece.stop) {
      piece.next_start = start;
      piece.blanks_before_next = blanks;
      return;
    }
    std::size_t end = start;
    int line = 0;
    for (; line < 4; ++line) {
      const std::size_t line_end = newlines.find(end);
      if (line_end == NewlineScanner::npos) break;
      end = line_end + 1;
    }
    if (line < 4) break;
    at = end;
    lines += blanks + 4;
    piece.ends.push_back(end);
    piece.lines.push_back(lines);
  }
  piece.stopped = true;
}

void WholeRecordScanner::scan_fasta_piece(Piece& piece, const char* data, std::size_t size,
                                          bool last) const {
  // A record ends where a line starting with '>' starts: every "\n>" here,
  // the '>' read. The piece's line ends are counted for the pieces after it.
  NewlineScanner newlines(data, size);
  piece.ends.clear();
  piece.lines.clear();
  std::uint64_t lines = 0;
  for (std::size_t at = piece.begin;;) {
    const std::size_t line_end = newlines.find(at);
    if (line_end == NewlineScanner::npos || line_end >= piece.stop) break;
    ++lines;
    at = line_end + 1;
    if (at < size && data[at] == '>') {
      piece.ends.push_back(at);
      piece.lines.push_back(lines);
    }
  }
  piece.lines_to_stop = lines;
  piece.stopped = last;
}

std::size_t WholeRecordScanner::scan_pieces(Format format, const char* data, std::size_t size,
                                            std::size_t from) {
  const std::size_t bytes = size - from;
  const std::size_t wanted =
      std::clamp<std::size_t>(bytes / threads_.min_piece_bytes, 1, threads_.threads);
  if (pieces_.size() < wanted) pieces_.resize(wanted);
  // Piece starts: FASTA's anywhere (its boundaries need no context), FASTQ's
  // at a guessed record start; a piece without one joins the piece before it.
  std::size_t count = 1;
  pieces_[0].begin = from;
  for (std::size_t p = 1; p < wanted; ++p) {
    const std::size_t at = from + bytes * p / wanted;
    const std::size_t limit = from + bytes * (p + 1) / wanted;
    const std::size_t begin = format == Format::fasta ? at : guess_fastq_start(data, size, at, limit);
    if (begin != npos && begin > pieces_[count - 1].begin) pieces_[count++].begin = begin;
  }
  for (std::size_t p = 0; p < count; ++p) pieces_[p].stop = p + 1 < count ? pieces_[p + 1].begin : size;
  const auto scan_piece = [&](std::size_t p) {
    if (format == Format::fasta)
      scan_fasta_piece(pieces_[p], data, size, p + 1 == count);
    else
      scan_fastq_piece(pieces_[p], data, size);
  };
  if (count == 1) {
    scan_piece(0);
  } else {
    host::parallel_for(count, unsigned(count), scan_piece);
  }
  return count;
}

WholeRecords WholeRecordScanner::scan(Format format, const char* data, std::size_t size,
                                      std::size_t from, const ScanLimits& limits) {
  WholeRecords taken{from, 0, 0};
  if (format != Format::fastq && format != Format::fasta) return taken;
  if (from >= size || (format == Format::fasta && data[from] != '>')) return taken;
  const std::size_t count = scan_pieces(format, data, size, from);

  // The pieces in order, each checked against the one before it; records are
  // taken as the splitter's loop would take them, one by one.
  std::uint64_t base_lines = 0;  // line ends in [from, piece.begin)
  for (std::size_t p = 0; p < count; ++p) {
    Piece& piece = pieces_[p];
    if (p > 0 && format == Format::fastq) {
      const Piece& before = pieces_[p - 1];
      if (before.next_start == piece.begin) {
        base_lines += before.blanks_before_next;
      } else {
        // The guess was wrong: this piece is scanned again from the last
        // boundary known, up to the next piece's start as before.
        piece.begin = taken.end;
        base_lines = taken.lines;
        scan_fastq_piece(piece, data, size);
      }
    }
    for (std::size_t r = 0; r < piece.ends.size(); ++r) {
      const std::uint64_t in_block = limits.records_in_block + taken.records;
      if (in_block >= limits.record_limit || (in_block > 0 && taken.end >= limits.byte_limit))
        return taken;
      taken.end = piece.ends[r];
      taken.lines = base_lines + piece.lines[r];
      ++taken.records;
    }
    if (piece.stopped) return taken;
    if (format == Format::fasta) {
      base_lines += piece.lines_to_stop;
    } else {
      base_lines += piece.lines.empty() ? 0 : piece.lines.back();
    }
  }
  return taken;
}

}  // namespace metawarp::io
