#pragma once
// The bulk of a FASTA record: its sequence lines joined, taken many lines at
// a time. SequenceReader reads a record's lines one by one (memchr for the
// line end, a check of the bases, an append: three passes and a few calls per
// 80-byte line); this takes the well-formed lines already in its buffer in
// one pass that finds the line ends, checks the bases and copies them at
// once, and leaves every other line (a header, a bad byte, a line whose end
// is not read yet) to that loop, which reads it with its own checks and
// messages. So the rules and messages stay written once, in
// sequence_reader.cpp; this only decides which lines may skip them.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace metawarp::io {

// Whole lines taken from the front of a text.
struct TakenLines {
  std::size_t bytes = 0;    // their line ends included
  std::uint64_t lines = 0;
};

// Appends to `bases` the contents of the lines at the start of `text` that
// SequenceReader's FASTA loop would append unchanged: lines ended by '\n'
// inside `text` whose content (without the '\n' and one '\r' before it) is
// empty (a blank line, not data) or all sequence characters
// (is_sequence_char, io/cut/text_checks.hpp). Stops before the first line
// that is not: a header ('>'), a byte that is no sequence character, a
// line whose '\n' is not in `text`.
TakenLines append_fasta_sequence_lines(std::string_view text, std::string& bases);

}  // namespace metawarp::io
