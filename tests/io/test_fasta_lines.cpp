// FASTA sequence lines taken in bulk (io/parse/fasta_lines.hpp) against a
// plain walk over the lines, and SequenceReader (which uses them) against the
// records and first error a plain walk expects, on inputs whose line ends
// fall on every side of the 16-byte lanes and 64-byte windows, CRLF and '>'
// split across reads, blank lines and bad bytes.
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "io/cut/text_checks.hpp"
#include "io/parse/fasta_lines.hpp"
#include "io/parse/sequence_reader.hpp"
#include "test_sources.hpp"

using namespace metawarp::io;
using namespace metawarp::io::test;

namespace {

// The lines append_fasta_sequence_lines must take, one by one.
TakenLines plain_walk(std::string_view text, std::string& bases) {
  TakenLines taken;
  while (true) {
    const std::size_t newline = text.find('\n', taken.bytes);
    if (newline == std::string_view::npos) return taken;
    std::string_view content = text.substr(taken.bytes, newline - taken.bytes);
    if (!content.empty() && content.back() == '\r') content.remove_suffix(1);
    for (const char c : content)
      if (!is_sequence_char(c)) return taken;  // '>' included
    bases.append(content);
    taken.bytes = newline + 1;
    ++taken.lines;
  }
}

// Lengths around the lane (16) and window (64) sizes, and a few long ones.
std::size_t line_length(std::mt19937_64& random) {
  static constexpr std::size_t edges[] = {0, 1, 15, 16, 17, 31, 32, 33, 62, 63, 64, 65, 66,
                                          127, 128, 129, 130, 191, 192, 193};
  switch (random() % 4) {
    case 0: return edges[random() % std::size(edges)];
    case 1: return random() % 8;
    case 2: return 60 + random() % 25;
    default: return random() % 400;
  }
}

std::string random_bases(std::mt19937_64& random, std::size_t length) {
  static constexpr std::string_view common = "ACGTACGTACGTNacgtn";
  static constexpr std::string_view rare = "RYKMSWBDHVU-*.xz";
  std::string bases(length, 'A');
  for (char& c : bases) c = random() % 20 == 0 ? rare[random() % rare.size()] : common[random() % common.size()];
  return bases;
}

// Bytes that stop a line: no sequence characters, or a header's start.
char random_stop(std::mt19937_64& random) {
  static constexpr char stops[] = {'>', '\r', '\n', ' ', '\t', '@', '0', '+', '\0', '\x80', '\xff', '=', '[', '`', '{'};
  return stops[random() % std::size(stops)];
}

// A text of sequence lines (LF or CRLF, some blank), sometimes a stop byte
// somewhere, cut at a random length.
std::string random_text(std::mt19937_64& random) {
  const bool crlf = random() % 4 == 0;
  std::string text;
  const std::size_t lines = random() % 12;
  for (std::size_t i = 0; i < lines; ++i) {
    text += random() % 10 == 0 ? std::string() : random_bases(random, line_length(random));
    text += crlf ? "\r\n" : "\n";
  }
  if (!text.empty() && random() % 2 == 0) text[random() % text.size()] = random_stop(random);
  text.resize(text.size() - random() % (std::min<std::size_t>(text.size(), 40) + 1));
  return text;
}

struct Expected {
  std::vector<SequenceRecord> records;
  std::string error;  // empty: none
};

// A FASTA file of records of such lines; `bad`: one stop byte in a
// sequence line (not one that a line end would make good: a '\r' before
// the '\n', a '\n', a '>' at the line's start). Returns what SequenceReader
// must give: the records before the bad line, and its error.
std::string random_fasta(std::mt19937_64& random, bool bad, Expected& expected) {
  const std::string line_end = random() % 4 == 0 ? "\r\n" : "\n";
  std::string text;
  std::uint64_t line = 0;
  const std::size_t records = 1 + random() % 6;
  std::size_t sequence_lines_total = 0;
  struct Planned {
    std::string header;
    std::vector<std::string> lines;
  };
  std::vector<Planned> plan(records);
  for (std::size_t r = 0; r < records; ++r) {
    plan[r].header = "seq" + std::to_string(r) + " description";
    const std::size_t lines = random() % 9;
    for (std::size_t i = 0; i < lines; ++i) {
      plan[r].lines.push_back(random() % 10 == 0 ? std::string() : random_bases(random, line_length(random)));
      ++sequence_lines_total;
    }
  }
  std::size_t bad_index = bad && sequence_lines_total > 0 ? random() % sequence_lines_total : std::size_t(-1);
  std::size_t index = 0;
  for (std::size_t r = 0; r < records && expected.error.empty(); ++r) {
    text += ">" + plan[r].header + line_end;
    ++line;
    SequenceRecord record;
    record.header = plan[r].header;
    record.number = r + 1;
    for (std::string& bases : plan[r].lines) {
      ++line;
      if (index++ == bad_index) {
        char stop = random_stop(random);
        while (stop == '\n' || stop == '\r' || stop == '>') stop = random_stop(random);
        const std::size_t at = random() % (bases.size() + 1);
        bases.insert(bases.begin() + std::ptrdiff_t(at), stop);
        expected.error = "test.fa: record " + std::to_string(r + 1) + ": invalid " + describe_byte(stop) +
                         " in sequence (line " + std::to_string(line) + ")";
      }
      text += bases + line_end;
      if (expected.error.empty()) record.sequence += bases;
    }
    if (expected.error.empty()) expected.records.push_back(record);
  }
  if (random() % 3 == 0 && !text.empty() && expected.error.empty()) {
    text.resize(text.size() - line_end.size());  // no final line end
  }
  return text;
}

}  // namespace

TEST_CASE("FASTA sequence lines are taken as a plain walk over the lines takes them") {
  std::mt19937_64 random(28);
  for (int round = 0; round < 20000; ++round) {
    const std::string text = random_text(random);
    std::string bases = "kept", expected_bases = "kept";
    const TakenLines taken = append_fasta_sequence_lines(text, bases);
    const TakenLines expected = plain_walk(text, expected_bases);
    INFO("text: " << text);
    REQUIRE(taken.bytes == expected.bytes);
    REQUIRE(taken.lines == expected.lines);
    REQUIRE(bases == expected_bases);
  }
}

TEST_CASE("every byte value, at every place of a line around the lanes and windows") {
  for (std::size_t length : {1, 15, 16, 17, 63, 64, 65, 130, 200}) {
    for (std::size_t at = 0; at < length; ++at) {
      for (int value = 0; value < 256; ++value) {
        std::string line(length, 'A');
        line[at] = static_cast<char>(value);
        // Lines enough that the windows run before and after it.
        const std::string text = std::string(200, 'C') + "\n" + line + "\n" + std::string(200, 'G') + "\n";
        std::string bases, expected_bases;
        const TakenLines taken = append_fasta_sequence_lines(text, bases);
        const TakenLines expected = plain_walk(text, expected_bases);
        INFO("length " << length << ", byte " << value << " at " << at);
        REQUIRE(taken.bytes == expected.bytes);
        REQUIRE(taken.lines == expected.lines);
        REQUIRE(bases == expected_bases);
      }
    }
  }
}

TEST_CASE("SequenceReader's FASTA records and errors, read in pieces of any size") {
  std::mt19937_64 random(29);
  for (int round = 0; round < 3000; ++round) {
    Expected expected;
    const std::string text = random_fasta(random, round % 2 == 1, expected);
    static constexpr std::size_t reads[] = {1, 2, 15, 16, 17, 63, 64, 65, 100, 4096, std::string::npos};
    const std::size_t max_read = reads[random() % std::size(reads)];
    INFO("text: " << text << "\nread size " << max_read);
    SequenceReader reader(std::make_unique<MemorySource>(text, max_read), "test.fa");
    std::vector<SequenceRecord> records;
    std::string error;
    try {
      SequenceRecord record;
      while (reader.next(record)) records.push_back(record);
    } catch (const InputError& e) {
      error = e.what();
    }
    REQUIRE(error == expected.error);
    REQUIRE(records.size() == expected.records.size());
    for (std::size_t i = 0; i < records.size(); ++i) {
      REQUIRE(records[i].header == expected.records[i].header);
      REQUIRE(records[i].sequence == expected.records[i].sequence);
      REQUIRE(records[i].number == expected.records[i].number);
    }
    if (error.empty()) REQUIRE(reader.bytes_consumed() == text.size());
  }
}
