// BlockRecordReader (io/parse/record_views.hpp), the query's parse into views,
// gives SequenceReader's records and SequenceReader's first error on every
// block, whatever the input: well-formed FASTQ and FASTA, CRLF, blank lines,
// multi-line and empty sequences, and inputs damaged byte by byte (bad
// bases, quality and header bytes, '+' lines, lengths, truncation). And on
// well-formed FASTQ it copies nothing: its views lie in the block.
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "test_effort.hpp"
#include "io/cut/record_blocks.hpp"
#include "io/parse/read_batch.hpp"
#include "io/parse/record_views.hpp"
#include "io_test_support.hpp"
#include "test_sources.hpp"

using namespace metawarp::io;
using namespace metawarp::io::test;

namespace {

std::string line_end(std::mt19937_64& random, bool crlf) {
  return crlf && random() % 3 == 0 ? "\r\n" : "\n";
}

// FASTQ records with, when `damaged`, a few bytes or lines changed: each
// change is one of the things the fast path must hand to SequenceReader.
std::string fastq_text(std::mt19937_64& random, std::size_t records, bool crlf, bool damaged) {
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < records; ++i) {
    const std::size_t length = random() % 5 == 0 ? random() % 3 : 20 + random() % 140;
    std::string header = numbered("r", i) + (random() % 2 ? "/1" : "");
    if (random() % 3 == 0) header += random() % 2 ? " some description" : "\tx=1";
    lines.push_back(std::string(1, '@').append(header));
    lines.push_back(random_bases(random, length));
    const int plus = int(random() % 4);
    std::string plus_line(1, '+');
    if (plus == 0) plus_line.append(header);
    if (plus == 1) plus_line.append(header.substr(0, header.find_first_of(" \t")));
    lines.push_back(plus_line);
    lines.push_back(random_quality(random, length));
  }
  if (damaged) {
    for (int change = 0, changes = 1 + int(random() % 3); change < changes; ++change) {
      std::string& line = lines[random() % lines.size()];
      const std::size_t at = line.empty() ? 0 : random() % line.size();
      switch (random() % 9) {
        case 0: line.insert(at, 1, char(random() % 32)); break;   // a control byte
        case 1: line.insert(at, 1, ' '); break;                   // a space
        case 2: line.insert(at, 1, char(0x80 + random() % 128)); break;  // non-ASCII
        case 3: line.insert(at, 1, "ACGT!@+-"[random() % 8]); break;  // a length changed
        case 4: line.clear(); break;                              // a blank line
        case 5: line = "+other"; break;                           // a '+' line elsewhere
        case 6: line.insert(0, 1, '@'); break;
        case 7: lines.insert(lines.begin() + std::ptrdiff_t(random() % lines.size()), ""); break;
        default: line += '\r'; break;                             // "\r\r\n"
      }
    }
  }
  std::string text;
  for (const std::string& line : lines) text.append(line).append(line_end(random, crlf));
  if (damaged && random() % 4 == 0) text.resize(text.size() - 1 - random() % 20);  // truncated
  return text;
}

// FASTA records of 0 to 4 sequence lines, blank lines among them, and when
// `damaged` a few bad bytes.
std::string fasta_text(std::mt19937_64& random, std::size_t records, bool crlf, bool damaged) {
  std::string text;
  for (std::size_t i = 0; i < records; ++i) {
    text.append(numbered(">s", i)).append(random() % 3 == 0 ? " desc" : "").append(line_end(random, crlf));
    for (std::size_t lines = random() % 5; lines > 0; --lines) {
      if (random() % 6 == 0) {
        text.append(line_end(random, crlf));  // blank
        continue;
      }
      std::string bases = random_bases(random, random() % 90);
      if (damaged && random() % 40 == 0) bases.insert(0, 1, "@+ 1\x01"[random() % 5]);
      text.append(bases).append(line_end(random, crlf));
    }
  }
  if (damaged && random() % 4 == 0 && !text.empty()) text.resize(text.size() - 1 - random() % std::min<std::size_t>(text.size(), 20));
  return text;
}

struct Parsed {
  std::vector<std::string> records;  // number, header, sequence, quality
  std::optional<std::string> error;
};

std::string describe(std::uint64_t number, std::string_view header, std::string_view sequence,
                     std::string_view quality) {
  std::string text = std::to_string(number);
  return text.append("|").append(header).append("|").append(sequence).append("|").append(quality);
}

Parsed by_reference(const RecordBlock& block) {
  Parsed parsed;
  try {
    SequenceReader reader(block);
    SequenceRecord record;
    while (reader.next(record))
      parsed.records.push_back(describe(record.number, record.header, record.sequence, record.quality));
  } catch (const InputError& error) {
    parsed.error = error.what();
  }
  return parsed;
}

Parsed by_views(const RecordBlock& block, RecordViewStorage& storage) {
  Parsed parsed;
  std::vector<RecordView> views;
  try {
    BlockRecordReader reader(block, storage);
    RecordView record;
    while (reader.next(record)) views.push_back(record);
  } catch (const InputError& error) {
    parsed.error = error.what();
  }
  // Read only now: every view must still be valid at the block's end.
  for (const RecordView& view : views)
    parsed.records.push_back(describe(view.number, view.header, view.sequence, view.quality));
  return parsed;
}

bool inside(std::string_view view, const RecordBlock& block) {
  return view.empty() || (view.data() >= block.bytes.data() &&
                          view.data() + view.size() <= block.bytes.data() + block.bytes.size());
}

}  // namespace

TEST_CASE("record views are SequenceReader's records and errors, block by block", "[io][views]") {
  std::mt19937_64 random(77);
  int blocks_checked = 0, errors_seen = 0;
  for (int round = 0; round < metawarp::test::rounds(400); ++round) {
    const bool fastq = round % 3 != 0;
    const bool crlf = round % 5 == 1;
    const bool damaged = round % 2 == 1;
    const std::size_t records = 1 + random() % 80;
    const std::string text = fastq ? fastq_text(random, records, crlf, damaged)
                                   : fasta_text(random, records, crlf, damaged);
    RecordBlockSplitter splitter(std::make_unique<MemorySource>(text, 1 + random() % 3000), "reads.fq");
    RecordBlock block;
    RecordViewStorage storage;  // reused over the blocks, as a worker does
    for (int b = 0; b < 1000; ++b) {
      splitter.next_block(block, 1 + random() % 40);
      if (block.empty()) break;
      const Parsed expected = by_reference(block);
      const Parsed got = by_views(block, storage);
      INFO("round " << round << ", block " << b << "\n" << block.bytes.view());
      REQUIRE(got.records == expected.records);
      REQUIRE(got.error == expected.error);
      ++blocks_checked;
      if (expected.error) {
        ++errors_seen;
        break;
      }
    }
  }
  // The inputs reach both outcomes often (in proportion to the rounds run).
  CHECK(blocks_checked > 400 / int(metawarp::test::effort_divisor));
  CHECK(errors_seen > 50 / int(metawarp::test::effort_divisor));
}

TEST_CASE("record views of well-formed FASTQ lie in the block", "[io][views]") {
  std::mt19937_64 random(5);
  for (const bool crlf : {false, true}) {
    const std::string text = fastq_text(random, 300, crlf, false);
    RecordBlockSplitter splitter(std::make_unique<MemorySource>(text), "reads.fq");
    RecordBlock block;
    splitter.next_block(block, 1000);
    REQUIRE(block.records == 300);
    RecordViewStorage storage;
    BlockRecordReader reader(block, storage);
    RecordView record;
    std::size_t count = 0;
    bool all_inside = true;
    while (reader.next(record)) {
      ++count;
      all_inside = all_inside && inside(record.header, block) && inside(record.sequence, block) &&
                   inside(record.quality, block);
    }
    CHECK(count == 300);
    CHECK(all_inside);
  }
}

TEST_CASE("record views join a FASTA sequence of several lines", "[io][views]") {
  const std::string text = ">a first\nACGT\nTT\n\nGG\n>b\n>c\nNNNN\r\n";
  RecordBlockSplitter splitter(std::make_unique<MemorySource>(text), "refs.fa");
  RecordBlock block;
  splitter.next_block(block, 10);
  RecordViewStorage storage;
  BlockRecordReader reader(block, storage);
  std::vector<RecordView> records(3);
  for (RecordView& record : records) REQUIRE(reader.next(record));
  RecordView none;
  CHECK_FALSE(reader.next(none));
  CHECK(records[0].header == "a first");
  CHECK(records[0].id() == "a");
  CHECK(records[0].sequence == "ACGTTTGG");
  CHECK(records[1].sequence.empty());
  CHECK(records[2].sequence == "NNNN");
  CHECK(inside(records[2].sequence, block));
  CHECK(records[2].number == 3);
}

TEST_CASE("a parse into views reuses a worker's buffers from batch to batch", "[io][views]") {
  std::mt19937_64 random(9);
  const std::string text = fastq_text(random, 200, false, false);
  std::vector<RecordBlockSplitter> inputs;
  for (int mate = 0; mate < 2; ++mate)
    inputs.emplace_back(std::make_unique<MemorySource>(text), "reads_" + std::to_string(mate + 1) + ".fq");
  ReadBlockCutter cutter(std::move(inputs), false);
  ReadBlocks blocks;
  ReadViewBatch batch;
  const RecordView* first_storage = nullptr;
  for (int round = 0; round < 4; ++round) {
    REQUIRE(cutter.next(blocks, 50, std::size_t(1) << 20));
    const ParsedReads parsed = parse_read_views(ReadLayout::two_files, blocks, batch);
    REQUIRE_FALSE(parsed.error);
    REQUIRE(parsed.count == 50);
    if (round == 0) first_storage = batch.mates1.data();
    CHECK(batch.mates1.data() == first_storage);  // not allocated again
    CHECK(batch.mates1[0].number == std::uint64_t(50 * round + 1));
    CHECK(batch.mates2[49].id() == batch.mates1[49].id());
    CHECK(inside(batch.mates2[49].sequence, blocks.second));
  }
}
