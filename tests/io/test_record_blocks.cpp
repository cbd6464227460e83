// RecordBlockSplitter: blocks of whole records that, parsed one by one by
// SequenceReader, give exactly what a serial read of the whole file gives:
// the same records and numbers, and for bad input the same first message.
#include <algorithm>
#include <optional>

#include "catch.hpp"
#include "test_effort.hpp"
#include "io/cut/record_blocks.hpp"
#include "io_test_support.hpp"

using namespace metawarp::io;
using namespace metawarp::io::test;

namespace {

// Random limits for each block, sometimes a byte limit, sometimes an extension.
struct RandomCuts {
  std::mt19937_64& random;
  std::size_t max_records;

  std::vector<RecordBlock> cut(RecordBlockSplitter& splitter) {
    std::vector<RecordBlock> blocks;
    while (true) {
      RecordBlock block;
      const std::size_t records = 1 + random() % max_records;
      const std::size_t bytes =
          random() % 3 == 0 ? 1 + random() % 20000 : RecordBlockSplitter::no_byte_limit;
      splitter.next_block(block, records, bytes);
      if (random() % 4 == 0 && !block.ends_input_early()) splitter.extend_block(block, random() % 4);
      if (block.empty()) {
        CHECK(splitter.exhausted());
        // Later blocks are empty as well.
        RecordBlock after;
        splitter.next_block(after, 10);
        CHECK(after.empty());
        blocks.push_back(std::move(block));  // may hold trailing blank lines
        return blocks;
      }
      REQUIRE(blocks.size() < 100000);
      blocks.push_back(std::move(block));
    }
  }
};

std::vector<SequenceRecord> parse_blocks(const std::vector<RecordBlock>& blocks) {
  std::vector<SequenceRecord> records;
  for (const RecordBlock& block : blocks) {
    SequenceReader reader(block);
    SequenceRecord record;
    std::size_t count = 0;
    while (reader.next(record)) {
      records.push_back(record);
      ++count;
    }
    CHECK(count == block.records);
  }
  return records;
}

// The first error of the blocks parsed in order; nullopt when there is none.
std::optional<std::string> first_block_error(const std::vector<RecordBlock>& blocks) {
  try {
    parse_blocks(blocks);
  } catch (const InputError& error) {
    return std::string(error.what());
  }
  return std::nullopt;
}

std::optional<std::string> serial_error(const std::string& path) {
  try {
    read_all(path);
  } catch (const InputError& error) {
    return std::string(error.what());
  }
  return std::nullopt;
}

// The blocks cover the input byte for byte, and each knows where it starts.
void check_layout(const std::vector<RecordBlock>& blocks, const std::string& text) {
  std::string joined;
  std::uint64_t record = 1;
  std::uint64_t line = 1;
  for (const RecordBlock& block : blocks) {
    CHECK(block.first_record == record);
    CHECK(block.first_line == line);
    const std::string_view bytes = block.bytes.view();
    joined.append(bytes);
    record += block.records;
    line += std::uint64_t(std::count(bytes.begin(), bytes.end(), '\n'));
  }
  CHECK(joined.size() == text.size());
  CHECK(joined == text);
}

const char* line_end(std::mt19937_64& random, bool crlf) { return crlf && random() % 2 ? "\r\n" : "\n"; }

// FASTQ with blank lines between records, CRLF (sometimes only on some lines),
// empty and long reads, and maybe no final line end.
std::string random_fastq(std::mt19937_64& random, std::size_t count, bool crlf) {
  std::string text;
  for (std::size_t i = 0; i < count; ++i) {
    while (random() % 6 == 0) text += line_end(random, crlf);
    std::size_t length = random() % 200;
    if (random() % 50 == 0) length = 0;
    if (random() % 40 == 0) length = 100000 + random() % 300000;  // longer than any read size
    const std::string bases = random_bases(random, length, "ACGTN");
    text += "@" + numbered("read", i) + "/1 x" + line_end(random, crlf);
    text += bases + line_end(random, crlf);
    text += std::string(random() % 2 ? "+" : "+" + numbered("read", i) + "/1 x") + line_end(random, crlf);
    text += random_quality(random, length) + line_end(random, crlf);
  }
  while (random() % 3 == 0) text += line_end(random, crlf);
  if (random() % 3 == 0 && !text.empty() && text.back() == '\n') {
    text.pop_back();
    if (!text.empty() && text.back() == '\r') text.pop_back();
  }
  return text;
}

std::string random_fasta(std::mt19937_64& random, std::size_t count, bool crlf) {
  std::string text;
  for (std::size_t i = 0; i < count; ++i) {
    while (random() % 6 == 0) text += line_end(random, crlf);
    std::size_t length = random() % 500;
    if (random() % 40 == 0) length = 200000 + random() % 300000;
    const std::string bases = random_bases(random, length);
    const std::size_t width = random() % 3 == 0 ? std::max<std::size_t>(length, 1) : 1 + random() % 100;
    text += ">" + numbered("seq", i) + " description" + line_end(random, crlf);
    for (std::size_t at = 0; at < length; at += width) {
      text += bases.substr(at, width) + line_end(random, crlf);
      if (random() % 20 == 0) text += line_end(random, crlf);  // blank lines inside a record
    }
  }
  if (random() % 3 == 0 && !text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

void check_same_as_serial(const std::string& path, const std::string& text, std::mt19937_64& random,
                          std::size_t max_records) {
  RecordBlockSplitter splitter(path);
  RandomCuts cuts{random, max_records};
  const auto blocks = cuts.cut(splitter);
  check_layout(blocks, text);
  const auto serial = read_all(path);
  const auto parsed = parse_blocks(blocks);
  REQUIRE(parsed.size() == serial.size());
  for (std::size_t i = 0; i < serial.size(); ++i) {
    INFO("record " << i + 1);
    CHECK(parsed[i].header == serial[i].header);
    CHECK(parsed[i].sequence == serial[i].sequence);
    CHECK(parsed[i].quality == serial[i].quality);
    CHECK(parsed[i].number == serial[i].number);
  }
}

}  // namespace

TEST_CASE("blocks of random FASTQ and FASTA cover the input and parse like the whole file") {
  TempDir dir;
  std::mt19937_64 random(40);
  for (int round = 0; round < metawarp::test::rounds(24); ++round) {
    const bool fastq = round % 2 == 0;
    const bool crlf = round % 4 >= 2;
    const std::size_t count = 1 + random() % 400;
    const std::string text = fastq ? random_fastq(random, count, crlf) : random_fasta(random, count, crlf);
    const std::string path = dir.file(fastq ? "random.fq" : "random.fa");
    write_file(path, text);
    INFO("round " << round << (fastq ? " fastq" : " fasta") << (crlf ? " crlf" : ""));
    check_same_as_serial(path, text, random, round < 12 ? 8 : 500);
  }
}

TEST_CASE("blocks of a gzip input equal those of the plain input") {
  TempDir dir;
  std::mt19937_64 random(41);
  const std::string text = random_fastq(random, 200, false);
  write_gzip(dir.file("reads.fq.gz"), {text.substr(0, text.size() / 3), text.substr(text.size() / 3)});
  check_same_as_serial(dir.file("reads.fq.gz"), text, random, 200);
}

TEST_CASE("edge inputs: empty, blank lines only, one record without a line end") {
  TempDir dir;
  std::mt19937_64 random(42);
  for (const std::string text : {"", "\n\n\r\n", "\r", "@r\nAC\n+\nII", ">r\nAC", ">r", "@r\n\n+\n\n",
                                  "\n\n>a\n\n>b\nAC\n\n", "@a\nA\n+\nI\r\n\r\n\r\n@b\nC\n+\nI\r\n\r"}) {
    INFO("input '" << text << "'");
    const std::string path = dir.file("edge.txt");
    write_file(path, text);
    check_same_as_serial(path, text, random, 1 + random() % 3);
  }
}

TEST_CASE("records are cut at the limits, never split") {
  TempDir dir;
  std::mt19937_64 random(43);
  std::vector<Truth> reads;
  for (int i = 100; i < 200; ++i)  // names of one length: records of one size
    reads.push_back({numbered("r", i), random_bases(random, 100), random_quality(random, 100)});
  write_file(dir.file("reads.fq"), to_fastq(reads));
  const std::size_t record_bytes = to_fastq({reads[0]}).size();

  RecordBlockSplitter splitter(dir.file("reads.fq"));
  RecordBlock block;
  splitter.next_block(block, 7);
  CHECK(block.records == 7);
  CHECK(block.bytes.size() == 7 * record_bytes);
  splitter.extend_block(block, 3);
  CHECK(block.records == 10);
  CHECK(block.first_record == 1);
  splitter.next_block(block, 1000, 2 * record_bytes + 1);  // a record starts below the limit: 3
  CHECK(block.records == 3);
  CHECK(block.first_record == 11);
  CHECK(block.first_line == 41);
  splitter.next_block(block, 1000, 1);  // at least one record
  CHECK(block.records == 1);
  splitter.next_block(block, 1000);
  CHECK(block.records == 86);
  CHECK_FALSE(block.empty());
  splitter.next_block(block, 1000);
  CHECK(block.empty());
  CHECK(block.format == Format::fastq);
}

TEST_CASE("a bad record in a later block has the serial reader's message") {
  TempDir dir;
  std::mt19937_64 random(44);
  // Each corruption applies to the text of one record (FASTQ: 4 lines).
  const std::vector<std::pair<std::string, std::string (*)(std::mt19937_64&, std::string)>> fastq_faults = {
      {"short quality",
       [](std::mt19937_64&, std::string r) {
         std::size_t line_end = r.rfind('\n');
         if (r[line_end - 1] == '\r') --line_end;
         return r.erase(line_end - 1, 1);
       }},
      {"digit in sequence", [](std::mt19937_64&, std::string r) { return r.replace(r.find('\n') + 2, 1, "7"); }},
      {"no '+' line",
       [](std::mt19937_64&, std::string r) {
         const std::size_t seq_end = r.find('\n', r.find('\n') + 1);
         return r.erase(seq_end + 1, r.find('\n', seq_end + 1) - seq_end);
       }},
      {"header without '@'", [](std::mt19937_64&, std::string r) { return r.replace(0, 1, "#"); }},
      {"control byte in header", [](std::mt19937_64&, std::string r) { return r.replace(2, 1, "\x02"); }},
      {"extra line", [](std::mt19937_64&, std::string r) { return r.insert(r.find('\n') + 1, "ACGT\n"); }},
      {"truncated", [](std::mt19937_64&, std::string r) { return r.substr(0, r.find('\n') + 3); }},
  };
  const std::vector<std::pair<std::string, std::string (*)(std::mt19937_64&, std::string)>> fasta_faults = {
      {"digit in sequence", [](std::mt19937_64&, std::string r) { return r.replace(r.find('\n') + 2, 1, "7"); }},
      {"control byte in header", [](std::mt19937_64&, std::string r) { return r.replace(2, 1, "\x01"); }},
      {"FASTQ header inside", [](std::mt19937_64&, std::string r) { return r.insert(r.find('\n') + 1, "@x\n"); }},
      {"space in sequence", [](std::mt19937_64&, std::string r) { return r.replace(r.find('\n') + 3, 1, " "); }},
  };

  for (int round = 0; round < 60; ++round) {
    const bool fastq = round % 2 == 0;
    const bool crlf = round % 3 == 0;
    const std::string end = crlf ? "\r\n" : "\n";
    std::vector<std::string> records;
    for (int i = 0; i < 300; ++i) {
      const std::size_t length = 20 + random() % 200;
      // Built with append: GCC 12 reports a false -Wrestrict for "literal" + std::string once inlined.
      std::string record(fastq ? "@" : ">");
      record.append(numbered("read", i)).append(end).append(random_bases(random, length)).append(end);
      if (fastq) record += "+" + end + random_quality(random, length) + end;
      records.push_back(record);
    }
    const auto& faults = fastq ? fastq_faults : fasta_faults;
    // One or two faults; the second may come before the first.
    const int fault_count = 1 + int(random() % 2);
    std::string names;
    for (int f = 0; f < fault_count; ++f) {
      const auto& fault = faults[random() % faults.size()];
      const std::size_t at = random() % records.size();
      if (fault.first == "truncated") {
        records.resize(at + 1);
      }
      records[std::min(at, records.size() - 1)] = fault.second(random, records[std::min(at, records.size() - 1)]);
      names += fault.first + " at " + std::to_string(at + 1) + "; ";
    }
    std::string text;
    for (const auto& record : records) text += record;
    const std::string path = dir.file(fastq ? "bad.fq" : "bad.fa");
    write_file(path, text);

    INFO("round " << round << ": " << names);
    const auto expected = serial_error(path);
    REQUIRE(expected.has_value());
    RecordBlockSplitter splitter(path);
    RandomCuts cuts{random, 1 + random() % 40};
    const auto blocks = cuts.cut(splitter);
    check_layout(blocks, text);
    CHECK(first_block_error(blocks) == expected);
  }
}

TEST_CASE("data that is neither FASTA nor FASTQ is reported as by the serial reader") {
  TempDir dir;
  std::mt19937_64 random(45);
  std::string binary(4096, '\0');
  for (char& byte : binary) byte = static_cast<char>(random() % 256);
  binary[0] = '\x03';
  for (const std::string& text : {std::string("\n\nACGTACGT\n>r1\nACGT\n"), binary}) {
    const std::string path = dir.file("neither.txt");
    write_file(path, text);
    RecordBlockSplitter splitter(path);
    const auto blocks = RandomCuts{random, 5}.cut(splitter);
    REQUIRE(blocks.size() == 2);  // the bad line, then the end
    CHECK(blocks[0].format == Format::unknown);
    CHECK(first_block_error(blocks) == serial_error(path));
  }
}

TEST_CASE("a read error ends the block and parsing it reports the serial message") {
  TempDir dir;
  std::mt19937_64 random(46);
  std::vector<Truth> reads;
  for (int i = 0; i < 3000; ++i) reads.push_back({numbered("r", i), random_bases(random, 150), random_quality(random, 150)});
  const std::string path = dir.file("reads.fq.gz");
  write_gzip(path, {to_fastq(reads)});
  const std::string good = read_file(path);
  write_file(path, good.substr(0, good.size() / 2));  // truncated in the middle

  RecordBlockSplitter splitter(path);
  const auto blocks = RandomCuts{random, 100}.cut(splitter);
  REQUIRE(blocks.size() >= 2);
  CHECK(blocks[blocks.size() - 2].read_error.has_value());
  const auto expected = serial_error(path);
  REQUIRE(expected.has_value());
  CHECK(expected->find("truncated gzip stream") != std::string::npos);
  CHECK(first_block_error(blocks) == expected);
}

TEST_CASE("a missing file is an error naming it") {
  TempDir dir;
  try {
    RecordBlockSplitter splitter(dir.file("missing.fq"));
    FAIL("opened a missing file");
  } catch (const InputError& error) {
    CHECK(std::string(error.what()).find(dir.file("missing.fq") + ": cannot open") == 0);
    CHECK(error.record() == 0);
  }
}

TEST_CASE("a damaged gzip input gives the serial error wherever the blocks are cut") {
  // Long enough for several of the gzip reader's output chunks, so that a
  // damaged spot lies far from the start and the bytes that arrive before
  // it are many reads' worth.
  TempDir dir;
  std::mt19937_64 random(47);
  std::vector<Truth> reads;
  for (int i = 0; i < 60000; ++i) reads.push_back({numbered("r", i), random_bases(random, 150), random_quality(random, 150)});
  const std::string text = to_fastq(reads);
  const std::string path = dir.file("reads.fq.gz");
  write_gzip(path, {text.substr(0, text.size() / 2)});
  const std::string member1 = read_file(path);
  write_gzip(path, {text.substr(0, text.size() / 2), text.substr(text.size() / 2)});
  const std::string good = read_file(path);

  for (int round = 0; round < metawarp::test::rounds(12); ++round) {
    std::string bad = good;
    const std::size_t at = good.size() / 8 + random() % (good.size() * 3 / 4);
    switch (round % 4) {
      case 0:  // the first member's checksum (CRC-32 or length): found at its end
        bad[member1.size() - 1 - random() % 8] ^= 0x40;
        break;
      case 1:  // corrupt deflate data, found wherever zlib finds it
        for (std::size_t i = at; i < at + 8; ++i) bad[i] = static_cast<char>(~bad[i]);
        break;
      case 2: bad.resize(at); break;     // truncated
      case 3: bad += "not gzip"; break;  // trailing data
    }
    write_file(path, bad);
    const auto expected = serial_error(path);
    REQUIRE(expected.has_value());
    INFO("round " << round << ": " << *expected);
    RecordBlockSplitter splitter(path);
    CHECK(first_block_error(RandomCuts{random, 1 + random() % 3000}.cut(splitter)) == expected);
  }
}
