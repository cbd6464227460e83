#pragma once
// How long a line of FASTA/FASTQ input may grow before it is an error, and
// what is checked in a line whose end has not been read yet
// (docs/input-limits.md). Written once for the two readers that must agree:
// LineReader (under SequenceReader) and RecordBlockSplitter, whose blocks
// SequenceReader parses later with the messages of a serial read. Without
// these limits a file without line ends (binary data, /dev/zero) would be
// buffered whole before anything could say it is bad.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>

#include "io/cut/text_checks.hpp"

namespace metawarp::io {

// A header line, '>' or '@' included: real ones are at most a few KB (long
// descriptions, Kraken-style tags), so a megabyte without a line end is not
// a header. The first non-blank line of an input is held to it too, which
// bounds what is read to tell FASTA, FASTQ and neither apart.
inline constexpr std::size_t max_header_line_bytes = std::size_t{1} << 20;

// A FASTQ sequence, '+' or quality line: far above the longest reads
// sequenced (nanopore "ultra-long" reads of a few Mbp), while bounding a
// record of garbage to 2 x 256 MiB.
inline constexpr std::size_t max_fastq_line_bytes = std::size_t{256} << 20;

// FASTA sequence lines have no limit: a chromosome of hundreds of Mbp on
// one line is legal, and its record is held whole anyway.
inline constexpr std::size_t no_line_limit = std::numeric_limits<std::size_t>::max();

// Where a line stands, which decides its limit and checks.
enum class LineKind : std::uint8_t {
  header,      // the first non-blank line of an input, a FASTQ record's first line
  fasta_body,  // a line after a FASTA header: sequence, or the next header ('>')
  fastq_body,  // a FASTQ record's sequence, '+' or quality line
};

inline std::size_t max_line_bytes(LineKind kind, char first_byte) {
  switch (kind) {
    case LineKind::header:
      return max_header_line_bytes;
    case LineKind::fasta_body:
      return first_byte == '>' ? max_header_line_bytes : no_line_limit;
    case LineKind::fastq_body:
      return max_fastq_line_bytes;
  }
  return max_header_line_bytes;
}

// The bytes of a line whose end has not been read that are surely its
// content: a final '\r' may still turn out to start a "\r\n" line end.
inline std::string_view known_content(std::string_view line_so_far) {
  if (!line_so_far.empty() && line_so_far.back() == '\r') line_so_far.remove_suffix(1);
  return line_so_far;
}

enum class PartialLine : std::uint8_t {
  acceptable,  // read on
  too_long,    // longer than its kind allows
  bad_bytes,   // a FASTA sequence line holding a byte that is not a sequence character
};

// The verdict on a line whose end has not been read yet, from its bytes so
// far; a reader asks each time it must read more of the line. FASTA sequence
// lines are checked as they grow, so that garbage without line ends fails
// after one buffer rather than at the end of the input. `checked`: how many
// bytes earlier calls found acceptable (0 for a new line); advanced here.
inline PartialLine judge_partial_line(std::string_view line_so_far, LineKind kind,
                                      std::size_t& checked) {
  const std::string_view content = known_content(line_so_far);
  if (content.empty()) return PartialLine::acceptable;
  if (content.size() > max_line_bytes(kind, content.front())) return PartialLine::too_long;
  const bool sequence_line = kind == LineKind::fasta_body && content.front() != '>';
  if (sequence_line && !all_sequence_chars(content.substr(checked))) return PartialLine::bad_bytes;
  checked = content.size();
  return PartialLine::acceptable;
}

}  // namespace metawarp::io
