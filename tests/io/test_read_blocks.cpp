// Batches of reads cut by ReadBlockCutter and parsed by parse_read_blocks give
// the reads, and the first error, of a serial read pair by pair, however the
// input is cut and whether R1 and R2 are cut in step or R1 runs ahead.
#include <deque>
#include <optional>

#include "catch.hpp"
#include "test_effort.hpp"
#include "io/parse/paired_reader.hpp"
#include "io/parse/read_batch.hpp"
#include "io_test_support.hpp"
#include "serial_reads.hpp"

using namespace metawarp::io;
using namespace metawarp::io::test;

namespace {

struct Outcome {
  std::vector<std::string> ids;  // "mate1 id|mate2 id" per pair delivered
  std::optional<std::string> error;
};

// The pairs of a serial read (serial_reads.hpp); `path2` empty: interleaved.
Outcome serial_pairs(const std::string& path1, const std::string& path2) {
  Outcome outcome;
  try {
    SequenceReader first(path1);
    std::optional<SequenceReader> second;
    if (!path2.empty()) second.emplace(path2);
    const SerialReads reads = read_serially(first, second ? &*second : nullptr, true);
    for (std::size_t i = 0; i < reads.mates1.size(); ++i)
      outcome.ids.push_back(std::string(reads.mates1[i].id()) + "|" + std::string(reads.mates2[i].id()));
    outcome.error = reads.error;
  } catch (const InputError& error) {
    outcome.error = error.what();
  }
  return outcome;
}

void append(Outcome& outcome, const ParsedReads& parsed, const std::vector<SequenceRecord>& mates1,
            const std::vector<SequenceRecord>& mates2) {
  for (std::size_t i = 0; i < parsed.count; ++i)
    outcome.ids.push_back(std::string(mates1[i].id()) + "|" + std::string(mates2[i].id()));
  if (parsed.error) {
    try {
      std::rethrow_exception(parsed.error);
    } catch (const InputError& error) {
      outcome.error = error.what();
    }
  }
}

// next(): both halves in step.
Outcome batched_pairs(const std::vector<std::string>& paths, bool interleaved, std::size_t batch,
                      std::size_t max_bytes) {
  Outcome outcome;
  try {
    ReadBlockCutter cutter(paths, interleaved);
    ReadBlocks blocks;
    std::vector<SequenceRecord> mates1, mates2;
    while (!outcome.error && cutter.next(blocks, batch, max_bytes))
      append(outcome, parse_read_blocks(cutter.layout(), blocks, mates1, mates2), mates1, mates2);
  } catch (const InputError& error) {
    outcome.error = error.what();
  }
  return outcome;
}

// cut_first() up to `ahead` batches before their cut_second(), as the query's
// two reader threads may.
Outcome pipelined_pairs(const std::vector<std::string>& paths, std::size_t batch,
                        std::size_t max_bytes, std::size_t ahead) {
  Outcome outcome;
  ReadBlockCutter cutter(paths, false);
  std::deque<ReadBlocks> cut;
  bool first_done = false;
  std::vector<SequenceRecord> mates1, mates2;
  while (!outcome.error) {
    while (!first_done && cut.size() < ahead) {
      cut.emplace_back();
      if (!cutter.cut_first(cut.back(), batch, max_bytes)) {
        cut.pop_back();
        first_done = true;
      }
    }
    if (cut.empty()) break;
    ReadBlocks& blocks = cut.front();
    if (!cutter.cut_second(blocks)) break;
    append(outcome, parse_read_blocks(cutter.layout(), blocks, mates1, mates2), mates1, mates2);
    cut.pop_front();
  }
  return outcome;
}

std::string fastq_record(std::mt19937_64& random, const std::string& id) {
  const std::size_t length = 30 + random() % 120;
  return "@" + id + " extra\n" + random_bases(random, length) + "\n+\n" + random_quality(random, length) + "\n";
}

// Breaks record `at` (0-based) of `records` in one of several ways.
void add_fault(std::mt19937_64& random, std::vector<std::string>& records, std::size_t at) {
  if (records.empty()) return;
  at = std::min(at, records.size() - 1);
  std::string& record = records[at];
  switch (random() % 5) {
    case 0: record.erase(record.size() - 2, 1); break;              // short quality
    case 1: record.replace(1, 4, "other"); break;                   // another id
    case 2: records.resize(at); break;                              // fewer records
    case 3: record.insert(record.find('\n') + 1, "AC\n"); break;    // a line too many
    case 4: record.replace(record.find('\n') + 1, 1, "!"); break;   // bad base
  }
}

std::string join(const std::vector<std::string>& records) {
  std::string text;
  for (const auto& record : records) text += record;
  return text;
}

}  // namespace

TEST_CASE("two-file batches give the serial pairs and the serial first error") {
  TempDir dir;
  std::mt19937_64 random(50);
  for (int round = 0; round < metawarp::test::rounds(150); ++round) {
    const std::size_t pairs = random() % 120;
    std::vector<std::string> r1, r2;
    for (std::size_t i = 0; i < pairs; ++i) {
      r1.push_back(fastq_record(random, numbered("frag", i) + "/1"));
      r2.push_back(fastq_record(random, numbered("frag", i) + "/2"));
    }
    const int faults = round < 10 ? 0 : int(random() % 4);
    for (int f = 0; f < faults; ++f) add_fault(random, random() % 2 ? r1 : r2, random() % (pairs + 1));
    std::string text2 = join(r2);
    if (round % 17 == 5) text2 = "garbage line\n" + text2;  // R2 not FASTQ
    write_file(dir.file("r1.fq"), join(r1));
    if (round % 3 == 0) {
      write_gzip(dir.file("r2.fq"), {text2});
    } else {
      write_file(dir.file("r2.fq"), text2);
    }
    const std::vector<std::string> paths{dir.file("r1.fq"), dir.file("r2.fq")};

    const Outcome expected = serial_pairs(paths[0], paths[1]);
    const std::size_t batch = 1 + random() % 40;
    const std::size_t max_bytes = random() % 2 ? 1 + random() % 3000 : std::size_t(-1);
    INFO("round " << round << ", batch " << batch << ", max_bytes " << max_bytes << ", error "
                  << expected.error.value_or("none"));
    const Outcome in_step = batched_pairs(paths, false, batch, max_bytes);
    CHECK(in_step.error == expected.error);
    CHECK(in_step.ids == expected.ids);
    const Outcome pipelined = pipelined_pairs(paths, batch, max_bytes, 1 + random() % 5);
    CHECK(pipelined.error == expected.error);
    CHECK(pipelined.ids == expected.ids);

    // PairedReader is built on the same pieces.
    Outcome reader;
    try {
      PairedReader paired(paths[0], paths[1]);
      SequenceRecord mate1, mate2;
      while (paired.next(mate1, mate2))
        reader.ids.push_back(std::string(mate1.id()) + "|" + std::string(mate2.id()));
    } catch (const InputError& error) {
      reader.error = error.what();
    }
    CHECK(reader.error == expected.error);
    CHECK(reader.ids == expected.ids);
  }
}

TEST_CASE("interleaved batches give the serial pairs and the serial first error") {
  TempDir dir;
  std::mt19937_64 random(51);
  for (int round = 0; round < 120; ++round) {
    const std::size_t pairs = random() % 100;
    std::vector<std::string> records;
    for (std::size_t i = 0; i < pairs; ++i) {
      records.push_back(fastq_record(random, numbered("frag", i) + "/1"));
      records.push_back(fastq_record(random, numbered("frag", i) + "/2"));
    }
    const int faults = round < 10 ? 0 : int(random() % 3);
    for (int f = 0; f < faults; ++f) add_fault(random, records, random() % (2 * pairs + 1));
    if (round % 7 == 3 && !records.empty()) records.pop_back();  // odd count
    write_file(dir.file("inter.fq"), join(records));

    const Outcome expected = serial_pairs(dir.file("inter.fq"), "");
    const std::size_t batch = 1 + random() % 30;
    const std::size_t max_bytes = random() % 2 ? 1 + random() % 2000 : std::size_t(-1);
    INFO("round " << round << ", batch " << batch << ", error " << expected.error.value_or("none"));
    const Outcome got = batched_pairs({dir.file("inter.fq")}, true, batch, max_bytes);
    CHECK(got.error == expected.error);
    CHECK(got.ids == expected.ids);
  }
}

TEST_CASE("single-end batches are the records in order, with the serial first error") {
  TempDir dir;
  std::mt19937_64 random(52);
  for (int round = 0; round < 60; ++round) {
    std::vector<std::string> records;
    for (int i = 0; i < 80; ++i) records.push_back(fastq_record(random, numbered("read", i)));
    if (round % 2) add_fault(random, records, random() % 80);
    write_file(dir.file("single.fq"), join(records));

    Outcome expected;
    SequenceReader reader(dir.file("single.fq"));
    const SerialReads serial = read_serially(reader, nullptr, false);
    for (const SequenceRecord& record : serial.mates1) expected.ids.push_back(std::string(record.id()) + "|");
    expected.error = serial.error;
    Outcome got;
    ReadBlockCutter cutter({dir.file("single.fq")}, false);
    CHECK_FALSE(cutter.paired());
    ReadBlocks blocks;
    std::vector<SequenceRecord> reads, unused;
    while (!got.error && cutter.next(blocks, 1 + random() % 20, std::size_t(-1))) {
      const ParsedReads parsed = parse_read_blocks(cutter.layout(), blocks, reads, unused);
      for (std::size_t i = 0; i < parsed.count; ++i) got.ids.push_back(std::string(reads[i].id()) + "|");
      if (parsed.error) {
        try {
          std::rethrow_exception(parsed.error);
        } catch (const InputError& error) {
          got.error = error.what();
        }
      }
    }
    CHECK(unused.empty());
    CHECK(got.error == expected.error);
    CHECK(got.ids == expected.ids);
  }
}

TEST_CASE("paired FASTA: a bad header is reported with its own record, wherever the cut") {
  // R1's record 4 has a control byte in its header, R2's record 3 a bad base:
  // pair 3 fails first (in R2), whether or not a block ends after R1's record 3.
  TempDir dir;
  write_file(dir.file("a.fa"), ">p1/1\nACGT\n>p2/1\nACGT\n>p3/1\nACGT\n>p4\x01/1\nACGT\n>p5/1\nACGT\n");
  write_file(dir.file("b.fa"), ">p1/2\nACGT\n>p2/2\nACGT\n>p3/2\nAC1T\n>p4/2\nACGT\n>p5/2\nACGT\n");
  const std::vector<std::string> paths{dir.file("a.fa"), dir.file("b.fa")};
  const Outcome expected = serial_pairs(paths[0], paths[1]);
  REQUIRE(expected.error.has_value());
  CHECK(*expected.error == dir.file("b.fa") + ": record 3: invalid character '1' in sequence (line 6)");
  CHECK(expected.ids.size() == 2);
  for (std::size_t batch = 1; batch <= 6; ++batch) {
    INFO("batch " << batch);
    const Outcome got = batched_pairs(paths, false, batch, std::size_t(-1));
    CHECK(got.error == expected.error);
    CHECK(got.ids == expected.ids);
  }
}
