// Input without line ends (binary data, /dev/zero, a header that never
// ends) fails after a bounded prefix with the message of its first problem,
// read serially or cut into blocks and parsed (io/cut/line_limits.hpp).
#include <functional>
#include <optional>

#include "catch.hpp"
#include "test_effort.hpp"
#include "io/cut/line_limits.hpp"
#include "io/cut/record_blocks.hpp"
#include "io/parse/read_batch.hpp"
#include "io_test_support.hpp"
#include "test_sources.hpp"

using namespace metawarp::io;
using namespace metawarp::io::test;

namespace {

using SourceMaker = std::function<std::unique_ptr<ByteSource>()>;

struct Outcome {
  std::vector<std::string> sequences;  // of the records read before the error
  std::optional<std::string> error;
  std::uint64_t bytes_read = 0;  // handed out by the source
};

void read_records(SequenceReader& reader, Outcome& outcome) {
  try {
    SequenceRecord record;
    while (reader.next(record)) outcome.sequences.push_back(record.sequence);
  } catch (const InputError& error) {
    outcome.error = error.what();
  }
}

Outcome read_serially(const SourceMaker& make) {
  std::unique_ptr<ByteSource> source = make();
  const ByteSource& counted = *source;
  Outcome outcome;
  SequenceReader reader(std::move(source), "input");
  read_records(reader, outcome);
  outcome.bytes_read = counted.raw_bytes_read();
  return outcome;
}

// Blocks of at most `max_records` records, parsed in order.
Outcome cut_and_parse(const SourceMaker& make, std::size_t max_records) {
  std::unique_ptr<ByteSource> source = make();
  const ByteSource& counted = *source;
  Outcome outcome;
  RecordBlockSplitter splitter(std::move(source), "input");
  RecordBlock block;
  while (!outcome.error) {
    splitter.next_block(block, max_records);
    if (block.empty()) break;
    SequenceReader reader(block);
    read_records(reader, outcome);
  }
  outcome.bytes_read = counted.raw_bytes_read();
  return outcome;
}

SourceMaker endless(const std::string& prefix, char filler) {
  return [=] { return std::make_unique<EndlessSource>(prefix, filler); };
}

SourceMaker in_memory(const std::string& bytes, std::size_t max_read = 4093) {
  return [=] { return std::make_unique<MemorySource>(bytes, max_read); };
}

// Both readers give `message` (and the same records) after reading less than `max_mib` MiB.
void check_fails_early(const SourceMaker& make, const std::string& message, std::uint64_t max_mib) {
  const Outcome serial = read_serially(make);
  INFO("serial: " << serial.error.value_or("no error") << " after " << serial.bytes_read
                  << " bytes");
  CHECK(serial.error == message);
  CHECK(serial.bytes_read < (max_mib << 20));
  for (const std::size_t max_records : {1, 3}) {
    const Outcome cut = cut_and_parse(make, max_records);
    INFO("blocks of " << max_records << ": " << cut.error.value_or("no error") << " after "
                      << cut.bytes_read << " bytes");
    CHECK(cut.error == message);
    CHECK(cut.sequences == serial.sequences);
    CHECK(cut.bytes_read < (max_mib << 20));
  }
}

const std::string header_limit = std::to_string(max_header_line_bytes);
const std::string fastq_limit = std::to_string(max_fastq_line_bytes);

}  // namespace

TEST_CASE("data without line ends is not FASTA or FASTQ, decided from its first bytes") {
  check_fails_early(endless("", '\0'),
                    "input: record 1: binary data, not FASTA or FASTQ: byte 0x00 (line 1)", 8);
  check_fails_early(endless("\n\r\n", '\x01'),
                    "input: record 1: binary data, not FASTA or FASTQ: byte 0x01 (line 3)", 8);
  check_fails_early(endless("", 'A'),
                    "input: record 1: missing header: data before the first '>' or '@' (line 1)",
                    8);
  // Only a header's worth of the first line is looked at.
  check_fails_early(endless(std::string(max_header_line_bytes + 1, 'A'), '\0'),
                    "input: record 1: missing header: data before the first '>' or '@' (line 1)",
                    8);
}

TEST_CASE("garbage in a FASTA sequence line fails within a few MiB, whatever follows") {
  check_fails_early(endless(">x\n", '\0'),
                    "input: record 1: invalid byte 0x00 in sequence (line 2)", 16);
  check_fails_early(endless(">a\nACGT\n\n>b d\nAC\nGT", '\xff'),
                    "input: record 2: invalid byte 0xff in sequence (line 6)", 16);
  // A bad byte deep inside a line longer than any buffer.
  check_fails_early(endless(">x\n" + std::string(9 << 20, 'A') + "N1", '\0'),
                    "input: record 1: invalid character '1' in sequence (line 2)", 32);
}

TEST_CASE("a header longer than the limit is an error of its own record") {
  check_fails_early(endless(">", 'A'),
                    "input: record 1: header longer than " + header_limit + " bytes (line 1)", 8);
  check_fails_early(endless("@", '\0'),
                    "input: record 1: header longer than " + header_limit + " bytes (line 1)", 8);
  // The record before it is whole: it is read, then the long header fails.
  check_fails_early(endless(">a\nACGT\n>", 'C'),
                    "input: record 2: header longer than " + header_limit + " bytes (line 3)", 8);
  check_fails_early(endless("@a\nAC\n+\nII\n\n@", 'C'),
                    "input: record 2: header longer than " + header_limit + " bytes (line 6)", 8);
  REQUIRE(read_serially(endless(">a\nACGT\n>", 'C')).sequences == std::vector<std::string>{"ACGT"});
}

TEST_CASE("headers at the limit are read, one byte more is an error") {
  const std::string longest = std::string(max_header_line_bytes - 1, 'h');  // + '>' or '@'
  for (const std::string end : {"\n", "\r\n"}) {
    for (const std::string& text :
         {">" + longest + end + "ACGT" + end + ">" + longest + end + "GG" + end,
          "@" + longest + end + "AC" + end + "+" + end + "II" + end}) {
      for (const std::size_t max_read : {std::size_t(4093), std::size_t(1) << 30}) {
        const Outcome serial = read_serially(in_memory(text, max_read));
        CHECK_FALSE(serial.error.has_value());
        CHECK(serial.sequences.size() == (text[0] == '>' ? 2 : 1));
        const Outcome cut = cut_and_parse(in_memory(text, max_read), 1);
        CHECK_FALSE(cut.error.has_value());
        CHECK(cut.sequences == serial.sequences);
      }
      // One more byte, in the first header or in a later one.
      const std::string longer_first = text.substr(0, 1) + "h" + text.substr(1);
      check_fails_early(in_memory(longer_first),
                        "input: record 1: header longer than " + header_limit + " bytes (line 1)",
                        8);
      if (text[0] == '>') {
        const std::string longer_second =
            text.substr(0, text.rfind('>') + 1) + "h" + text.substr(text.rfind('>') + 1);
        check_fails_early(in_memory(longer_second),
                          "input: record 2: header longer than " + header_limit + " bytes (line 3)",
                          8);
      }
    }
  }
}

TEST_CASE("FASTQ lines longer than the limit are errors") {
  // 256 MiB each: the limit is far above real reads, so these read that much.
  const std::uint64_t limit_mib = (max_fastq_line_bytes >> 20) + 4;
  check_fails_early(endless("@r\n", 'A'),
                    "input: record 1: sequence line longer than " + fastq_limit + " bytes (line 2)",
                    limit_mib);
  check_fails_early(endless("@r\nAC\n+", 'r'),
                    "input: record 1: '+' line longer than " + fastq_limit + " bytes (line 3)",
                    limit_mib);
  check_fails_early(endless("@r\nAC\n+\nII\n@s\nACGT\n+\n", 'I'),
                    "input: record 2: quality line longer than " + fastq_limit + " bytes (line 8)",
                    limit_mib);
}

TEST_CASE("random input around the limits: blocks parse like a serial read") {
  // Headers just under, at and over the limit (with and without CR), and
  // garbage at random places in lines longer than the readers' buffers, read
  // in pieces of random size and cut into blocks of random size.
  std::mt19937_64 random(61);
  for (int round = 0; round < metawarp::test::rounds(24); ++round) {
    const bool fastq = round % 2 == 1;
    const std::string end = round % 3 == 0 ? "\r\n" : "\n";
    std::string text;
    for (int record = 0; record < 6; ++record) {
      std::string header = numbered("r", record);
      if (random() % 3 == 0) header.resize(max_header_line_bytes - 2 + random() % 3, 'h');
      std::string bases =
          random_bases(random, random() % 3 == 0 ? (1 << 20) + random() % (5 << 20) : 50);
      if (random() % 4 == 0) bases[random() % bases.size()] = random() % 2 ? '\0' : '7';
      text += (fastq ? "@" : ">") + header + end + bases + end;
      if (fastq) text += "+" + end + std::string(bases.size(), 'I') + end;
    }
    const std::size_t read_size = 1000 + random() % 300000;
    INFO("round " << round << ", read size " << read_size);
    const Outcome serial = read_serially(in_memory(text, read_size));
    const Outcome cut = cut_and_parse(in_memory(text, read_size), 1 + random() % 3);
    CHECK(cut.error == serial.error);
    CHECK(cut.sequences == serial.sequences);
  }
}

TEST_CASE("FASTA sequence lines have no limit") {
  std::mt19937_64 random(60);
  const std::vector<Truth> truth = {{"chromosome", random_bases(random, 11 << 20), ""},
                                    {"plasmid", random_bases(random, 5000), ""}};
  const std::string text = to_fasta(truth, 0);  // one line per record, longer than the buffer
  for (const std::size_t max_read : {std::size_t(65536), std::size_t(1) << 30}) {
    const Outcome serial = read_serially(in_memory(text, max_read));
    CHECK_FALSE(serial.error.has_value());
    REQUIRE(serial.sequences.size() == 2);
    CHECK(serial.sequences[0] == truth[0].sequence);
    CHECK(serial.sequences[1] == truth[1].sequence);
    const Outcome cut = cut_and_parse(in_memory(text, max_read), 1);
    CHECK_FALSE(cut.error.has_value());
    CHECK(cut.sequences == serial.sequences);
  }
}

TEST_CASE("/dev/zero is binary data, read serially or cut into blocks") {
  const std::string message =
      "/dev/zero: record 1: binary data, not FASTA or FASTQ: byte 0x00 (line 1)";
  try {
    read_all("/dev/zero");
    FAIL("read /dev/zero without an error");
  } catch (const InputError& error) {
    CHECK(error.what() == message);
  }
  RecordBlockSplitter splitter("/dev/zero");
  RecordBlock block;
  splitter.next_block(block, 100);
  CHECK(block.cut_inside_line);
  CHECK(block.bytes.size() < (std::size_t(8) << 20));
  try {
    SequenceReader reader(block);
    SequenceRecord record;
    reader.next(record);
    FAIL("parsed a block of /dev/zero without an error");
  } catch (const InputError& error) {
    CHECK(error.what() == message);
  }
  splitter.next_block(block, 100);
  CHECK(block.empty());
}

TEST_CASE("a pair of files whose mates 2 are /dev/zero fails with their first error") {
  TempDir dir;
  write_file(dir.file("r1.fq"), "@p/1\nACGT\n+\nIIII\n");
  const std::string message =
      "/dev/zero: record 1: binary data, not FASTA or FASTQ: byte 0x00 (line 1)";
  for (const bool zero_first : {false, true}) {
    const std::vector<std::string> paths =
        zero_first ? std::vector<std::string>{"/dev/zero", dir.file("r1.fq")}
                   : std::vector<std::string>{dir.file("r1.fq"), "/dev/zero"};
    ReadBlockCutter cutter(paths, false);
    ReadBlocks blocks;
    std::vector<SequenceRecord> mates1, mates2;
    REQUIRE(cutter.next(blocks, 100, std::size_t(-1)));
    const ParsedReads parsed = parse_read_blocks(cutter.layout(), blocks, mates1, mates2);
    CHECK(parsed.count == 0);
    REQUIRE(parsed.error);
    try {
      std::rethrow_exception(parsed.error);
    } catch (const InputError& error) {
      CHECK(error.what() == message);
    }
    CHECK_FALSE(cutter.next(blocks, 100, std::size_t(-1)));
  }
}
