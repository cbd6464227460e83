// The cutter's record scan on several threads (io/cut/record_scan.hpp): on any
// thread count and piece size (down to pieces of one byte, so that piece
// starts fall everywhere) it finds the records a plain line-by-line scan
// finds, on well-formed and damaged FASTQ and FASTA alike; and blocks cut
// with it are those of a serial cut, byte for byte, errors included (and
// when reading ahead too, up to a line rejected before its end).
#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "test_effort.hpp"
#include "io/cut/record_blocks.hpp"
#include "io/cut/record_scan.hpp"
#include "io/parse/read_batch.hpp"
#include "cut_test_support.hpp"
#include "io_test_support.hpp"
#include "test_sources.hpp"

using namespace metawarp::io;
using namespace metawarp::io::test;

namespace {

const unsigned thread_counts[] = {1, 2, 3, 8};
const std::size_t piece_sizes[] = {1, 3, 17, 200, 4096};

std::string line_end(std::mt19937_64& random) { return random() % 5 == 0 ? "\r\n" : "\n"; }

// FASTQ that trips a guessed record start: quality lines that start with '@'
// (often), empty reads, blank and CRLF lines between records; `damaged`
// adds lines dropped, doubled or replaced, so that records lose their shape;
// `may_cut_end` sometimes drops the last line end or more.
std::string tricky_fastq(std::mt19937_64& random, std::size_t records, bool damaged, bool may_cut_end = true) {
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < records; ++i) {
    while (random() % 8 == 0) lines.push_back("");  // "\n" or "\r\n"
    const std::size_t length = random() % 4 == 0 ? random() % 3 : random() % 60;
    std::string quality = random_quality(random, length);
    if (!quality.empty() && random() % 3 == 0) quality[0] = '@';
    lines.push_back(numbered("@r", i));
    lines.push_back(random_bases(random, length));
    lines.push_back(random() % 2 ? "+" : numbered("+r", i));
    lines.push_back(quality);
  }
  if (damaged) {
    for (int change = 0, changes = 1 + int(random() % 4); change < changes && !lines.empty(); ++change) {
      const std::size_t at = random() % lines.size();
      const std::string line = lines[at];
      switch (random() % 5) {
        case 0: lines.erase(lines.begin() + std::ptrdiff_t(at)); break;
        case 1: lines.insert(lines.begin() + std::ptrdiff_t(at), line); break;
        case 2: lines[at].insert(0, 1, '@'); break;
        case 3: lines[at].assign(1, '+'); break;
        default: lines[at].assign(1, '\r'); break;  // "\r\r\n" is not blank
      }
    }
  }
  std::string text;
  for (const std::string& line : lines) text.append(line).append(line_end(random));
  // Sometimes without the last line end, or cut inside a line.
  if (may_cut_end && random() % 4 == 0 && !text.empty()) text.resize(text.size() - 1 - random() % std::min<std::size_t>(text.size(), 40));
  return text;
}

// FASTA with blank lines, CRLF, empty records, and sequence lines that start
// with characters other than bases.
std::string tricky_fasta(std::mt19937_64& random, std::size_t records) {
  std::string text;
  for (std::size_t i = 0; i < records; ++i) {
    text.append(numbered(">s", i)).append(line_end(random));
    for (std::size_t lines = random() % 4; lines > 0; --lines) {
      if (random() % 6 == 0) {
        text.append(line_end(random));
      } else {
        text.append(random() % 10 == 0 ? "@x" : "").append(random_bases(random, random() % 70)).append(line_end(random));
      }
    }
  }
  if (random() % 4 == 0 && !text.empty()) text.resize(text.size() - 1 - random() % std::min<std::size_t>(text.size(), 30));
  return text;
}

// The records of text[from, ...) by a plain walk over its lines, taken as
// the cutter takes them (the limits checked before each record).
WholeRecords line_walk(Format format, const std::string& text, std::size_t from, const ScanLimits& limits) {
  WholeRecords taken{from, 0, 0};
  const auto newlines = [&](std::size_t begin, std::size_t end) {
    return std::uint64_t(std::count(text.begin() + std::ptrdiff_t(begin), text.begin() + std::ptrdiff_t(end), '\n'));
  };
  while (true) {
    const std::uint64_t in_block = limits.records_in_block + taken.records;
    if (in_block >= limits.record_limit || (in_block > 0 && taken.end >= limits.byte_limit)) return taken;
    std::size_t end = 0;
    if (format == Format::fastq) {
      std::size_t start = taken.end;
      while (true) {
        if (text.compare(start, 1, "\n") == 0) {
          start += 1;
        } else if (text.compare(start, 2, "\r\n") == 0) {
          start += 2;
        } else {
          break;
        }
      }
      if (start >= text.size() || (text[start] == '\r' && start + 1 == text.size())) return taken;
      end = start;
      for (int line = 0; line < 4; ++line) {
        const std::size_t at = text.find('\n', end);
        if (at == std::string::npos) return taken;
        end = at + 1;
      }
    } else {
      const std::size_t at = text.find("\n>", taken.end);
      if (at == std::string::npos) return taken;
      end = at + 1;
    }
    taken.lines += newlines(taken.end, end);
    taken.end = end;
    ++taken.records;
  }
}

bool same(const WholeRecords& a, const WholeRecords& b) {
  return a.end == b.end && a.records == b.records && a.lines == b.lines;
}

// What parsing `block` gives: its records' headers, then the error that
// ends it (setting `failed`).
std::string parsed(const RecordBlock& block, bool& failed) {
  std::string out;
  try {
    SequenceReader reader(block);
    SequenceRecord record;
    while (reader.next(record)) out.append(record.header).append(1, ';');
  } catch (const InputError& error) {
    out.append(" error: ").append(error.what());
    failed = true;
  }
  return out;
}


}  // namespace

TEST_CASE("the record scan finds on any threads what a walk over the lines finds", "[io][cut]") {
  std::mt19937_64 random(31);
  for (int round = 0; round < metawarp::test::rounds(160); ++round) {
    const bool fastq = round % 3 != 0;
    const std::string text = fastq ? tricky_fastq(random, 1 + random() % 120, round % 4 == 1)
                                   : tricky_fasta(random, 1 + random() % 120);
    const Format format = fastq ? Format::fastq : Format::fasta;
    // From the start, and from a record boundary later on.
    std::vector<std::size_t> starts{0};
    const WholeRecords some = line_walk(format, text, 0, {0, 1 + random() % 20, std::string::npos});
    if (some.end > 0 && some.end < text.size()) starts.push_back(some.end);
    for (const std::size_t from : starts) {
      if (format == Format::fasta && text.compare(from, 1, ">") != 0) continue;
      const ScanLimits limits[] = {{0, ~std::uint64_t{0}, std::string::npos},
                                   {random() % 3, 1 + random() % 50, std::string::npos},
                                   {0, ~std::uint64_t{0}, from + random() % (text.size() + 1)},
                                   {1, 1 + random() % 80, from + random() % (text.size() + 1)}};
      for (const ScanLimits& limit : limits) {
        const WholeRecords expected = line_walk(format, text, from, limit);
        bool all_same = true;
        for (const unsigned threads : thread_counts) {
          for (const std::size_t piece : piece_sizes) {
            WholeRecordScanner scanner(ScanThreads{threads, piece});
            const WholeRecords got = scanner.scan(format, text.data(), text.size(), from, limit);
            all_same = all_same && same(got, expected);
            if (!same(got, expected)) {
              INFO("round " << round << ", threads " << threads << ", piece " << piece << ", from " << from);
              CHECK(got.end == expected.end);
              CHECK(got.records == expected.records);
              CHECK(got.lines == expected.lines);
            }
          }
        }
        CHECK(all_same);
      }
    }
  }
}

TEST_CASE("the record scan starts no record inside a quality line that starts with '@'", "[io][cut]") {
  // Every quality line starts with '@' and its next line too: a guess from
  // a quality line is a record start only by the '+' two lines on.
  std::string text;
  for (int i = 0; i < 400; ++i) text.append(numbered("@q", std::size_t(i))).append("\nACGT\n+\n@III\n");
  for (const unsigned threads : thread_counts) {
    for (const std::size_t piece : piece_sizes) {
      WholeRecordScanner scanner(ScanThreads{threads, piece});
      const WholeRecords got = scanner.scan(Format::fastq, text.data(), text.size(), 0, {0, ~std::uint64_t{0}, std::string::npos});
      CHECK(got.records == 400);
      CHECK(got.end == text.size());
      CHECK(got.lines == 1600);
    }
  }
}

TEST_CASE("blocks cut with a parallel record scan are those of a serial cut", "[io][cut]") {
  std::mt19937_64 random(32);
  for (int round = 0; round < 60; ++round) {
    const bool fastq = round % 3 != 0;
    const std::string text = fastq ? tricky_fastq(random, 50 + random() % 400, round % 4 == 1)
                                   : tricky_fasta(random, 50 + random() % 400);
    const std::size_t max_read = 1 + random() % 5000;
    const unsigned threads = thread_counts[random() % std::size(thread_counts)];
    const std::size_t piece = piece_sizes[random() % std::size(piece_sizes)];
    // Reading ahead (io/cut/background_read.hpp) reads other sizes: where a line
    // is rejected before its end is read, the cut ends where the read
    // stopped (or, the line's end read, the parse rejects it), so from there
    // on the blocks may differ; what they parse to may not.
    const bool read_ahead = round % 2 == 1;
    RecordBlockSplitter serial(std::make_unique<MemorySource>(text, max_read), "reads", 1 << 16);
    RecordBlockSplitter parallel(std::make_unique<MemorySource>(text, max_read), "reads", 1 << 16,
                                 ScanThreads{threads, piece}, read_ahead);
    RecordBlock expected;
    RecordBlock got;
    bool all_same = true;
    bool cut_inside_line = false;
    bool serial_failed = false, parallel_failed = false;
    std::string serial_parsed, parallel_parsed;
    for (int block = 0; block < 10'000; ++block) {
      const std::size_t records = 1 + random() % 60;
      const std::size_t bytes = random() % 2 ? RecordBlockSplitter::no_byte_limit : 1 + random() % 3000;
      serial.next_block(expected, records, bytes);
      parallel.next_block(got, records, bytes);
      cut_inside_line = cut_inside_line || (read_ahead && (expected.cut_inside_line || got.cut_inside_line));
      all_same = all_same && (cut_inside_line || same_blocks(got, expected));
      if (!serial_failed) serial_parsed += parsed(expected, serial_failed);
      if (!parallel_failed) parallel_parsed += parsed(got, parallel_failed);
      if ((expected.empty() && got.empty()) || !all_same) break;
    }
    INFO("round " << round << ", threads " << threads << ", piece " << piece << ", reads of " << max_read
                   << (read_ahead ? ", read ahead" : ""));
    CHECK(all_same);
    CHECK(parallel_parsed == serial_parsed);
  }
}

TEST_CASE("a line over its limit ends a parallel cut where it ends a serial one", "[io][cut]") {
  // A header longer than a header may be, by more than one read, so that the
  // cutter rejects it before reading its end.
  std::mt19937_64 random(33);
  std::string text = tricky_fastq(random, 300, false, false);
  text.append("@").append(2 * max_header_line_bytes, 'h').append("\nACGT\n+\nIIII\n");
  text.append(tricky_fastq(random, 30, false));
  for (const unsigned threads : thread_counts) {
    // The line is longer than any read ahead (of 64 KiB here) too.
    const bool read_ahead = threads % 2 == 1;
    RecordBlockSplitter serial(std::make_unique<MemorySource>(text), "reads", 1 << 16);
    RecordBlockSplitter parallel(std::make_unique<MemorySource>(text), "reads", 1 << 16, ScanThreads{threads, 64},
                                 read_ahead);
    RecordBlock expected;
    RecordBlock got;
    bool all_same = true;
    bool cut_inside = false;
    while (true) {
      serial.next_block(expected, 100);
      parallel.next_block(got, 100);
      all_same = all_same && same_blocks(got, expected);
      cut_inside = cut_inside || got.cut_inside_line;
      if (expected.empty() || !all_same) break;
    }
    CHECK(all_same);
    CHECK(cut_inside);
  }
}

TEST_CASE("pairs cut with a parallel record scan stay in step and fail as a serial cut does", "[io][cut]") {
  std::mt19937_64 random(34);
  for (int round = 0; round < 24; ++round) {
    // Mates 2: the same reads, sometimes one record more or fewer, or damaged.
    const std::size_t pairs = 100 + random() % 300;
    std::mt19937_64 same_seed(round);
    std::string mates1 = tricky_fastq(same_seed, pairs, false, false);
    std::mt19937_64 same_seed2(round);
    std::string mates2 =
        tricky_fastq(same_seed2, pairs + (round % 4 == 1) - (round % 4 == 2), round % 4 == 3, false);
    const unsigned threads = thread_counts[random() % std::size(thread_counts)];
    const std::size_t piece = piece_sizes[random() % std::size(piece_sizes)];
    const auto cut_all = [&](ScanThreads scan, bool read_ahead) {
      std::vector<RecordBlockSplitter> inputs;
      inputs.emplace_back(std::make_unique<MemorySource>(mates1, 777), "R1", 1 << 16, scan, read_ahead);
      inputs.emplace_back(std::make_unique<MemorySource>(mates2, 1001), "R2", 1 << 16, scan, read_ahead);
      ReadBlockCutter cutter(std::move(inputs), false);
      ReadBlocks blocks;
      std::vector<SequenceRecord> records1, records2;
      std::vector<std::string> seen;  // per batch: ids and the error's message
      while (cutter.next(blocks, 37, 5000)) {
        const ParsedReads parsed = parse_read_blocks(ReadLayout::two_files, blocks, records1, records2);
        std::string batch;
        for (std::size_t i = 0; i < parsed.count; ++i) batch.append(records1[i].header).append(records2[i].header);
        if (parsed.error) {
          try {
            std::rethrow_exception(parsed.error);
          } catch (const InputError& error) {
            batch.append(" error: ").append(error.what());
          }
        }
        seen.push_back(batch);
        if (parsed.error) break;
      }
      return seen;
    };
    const std::vector<std::string> serial = cut_all(ScanThreads{}, false);
    INFO("round " << round << ", threads " << threads << ", piece " << piece);
    CHECK(cut_all(ScanThreads{threads, piece}, false) == serial);
    CHECK(cut_all(ScanThreads{threads, piece}, true) == serial);  // reading ahead
    INFO(serial.back().substr(std::max<std::size_t>(serial.back().size(), 300) - 300));
    if (round % 4 == 1 || round % 4 == 2) CHECK(serial.back().find("has more records than") != std::string::npos);
  }
}
