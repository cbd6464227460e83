// The query's reading: ReadBlockCutter cuts blocks of whole records and
// parse_read_blocks parses them. Oracle: the reads and the first error are
// those of a serial read (tests/io/serial_reads.hpp) of the same bytes, for
// single reads, interleaved pairs and two files, whatever the batch limits,
// cut with and without reading ahead (io/cut/block_read_ahead.hpp).
//
// Input: option bytes (layout, reads per batch, bytes per batch, read size,
// how far mates 1 are cut ahead), then one file, or two separated by a line
// "=====".
#include <deque>

#include "fuzz_harness.hpp"
#include "io/decode/byte_source.hpp"
#include "io/parse/read_batch.hpp"
#include "serial_reads.hpp"
#include "temp_files.hpp"
#include "test_sources.hpp"

using namespace metawarp;
using io::ReadLayout;
using io::SequenceRecord;
using io::test::same_records;
using io::test::SerialReads;

namespace {

struct Options {
  ReadLayout layout;
  std::size_t max_reads;
  std::size_t max_bytes;
  std::size_t read_size;
  std::size_t ahead;  // two files: batches whose mates 1 are cut before their mates 2
};

std::unique_ptr<io::ByteSource> open(const std::string& file, std::size_t read_size) {
  return io::detect_compression(std::make_unique<io::test::MemorySource>(file, read_size));
}

SerialReads read_serially(const Options& options, const std::string& file1,
                          const std::string& file2) {
  io::SequenceReader first(open(file1, options.read_size), "r1");
  if (options.layout != ReadLayout::two_files)
    return io::test::read_serially(first, nullptr, options.layout == ReadLayout::interleaved);
  io::SequenceReader second(open(file2, options.read_size), "r2");
  return io::test::read_serially(first, &second, false);
}

void append(SerialReads& reads, const io::ParsedReads& parsed, ReadLayout layout,
            const std::vector<SequenceRecord>& mates1, const std::vector<SequenceRecord>& mates2) {
  reads.mates1.insert(reads.mates1.end(), mates1.begin(),
                      mates1.begin() + std::ptrdiff_t(parsed.count));
  if (layout != ReadLayout::single)
    reads.mates2.insert(reads.mates2.end(), mates2.begin(),
                        mates2.begin() + std::ptrdiff_t(parsed.count));
  if (!parsed.error) return;
  try {
    std::rethrow_exception(parsed.error);
  } catch (const io::InputError& error) {
    reads.error = error.what();
  }
}

// Cuts as the query's reader threads do: mates 1 up to `ahead` batches
// before mates 2 (next() when ahead is 1).
SerialReads cut_and_parse(const Options& options, const std::string& file1,
                          const std::string& file2, bool read_ahead) {
  std::vector<io::RecordBlockSplitter> inputs;
  inputs.emplace_back(open(file1, options.read_size), "r1", io::serial_read_bytes, io::ScanThreads{},
                      read_ahead);
  if (options.layout == ReadLayout::two_files)
    inputs.emplace_back(open(file2, options.read_size), "r2", io::serial_read_bytes, io::ScanThreads{},
                        read_ahead);
  io::ReadBlockCutter cutter(std::move(inputs), options.layout == ReadLayout::interleaved);
  SerialReads reads;
  std::deque<io::ReadBlocks> cut;
  std::vector<SequenceRecord> mates1, mates2;
  bool first_done = false;
  while (!reads.error) {
    while (!first_done && cut.size() < options.ahead) {
      cut.emplace_back();
      if (!cutter.cut_first(cut.back(), options.max_reads, options.max_bytes)) {
        cut.pop_back();
        first_done = true;
      }
    }
    if (cut.empty() || !cutter.cut_second(cut.front())) break;
    append(reads, io::parse_read_blocks(options.layout, cut.front(), mates1, mates2),
           options.layout, mates1, mates2);
    cut.pop_front();
  }
  return reads;
}

std::string fastq(const std::string& id, const std::string& bases) {
  return "@" + id + "\n" + bases + "\n+\n" + std::string(bases.size(), '5') + "\n";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::InputBytes input(data, size);
  static constexpr ReadLayout layouts[] = {ReadLayout::single, ReadLayout::interleaved,
                                           ReadLayout::two_files};
  static constexpr std::size_t read_sizes[] = {1, 3, 16, 4093};
  Options options;
  options.layout = layouts[input.option() % 3];
  options.max_reads = 1 + input.option() % 8;
  const std::uint8_t bytes = input.option();
  options.max_bytes = bytes == 0 ? io::RecordBlockSplitter::no_byte_limit : bytes;
  options.read_size = read_sizes[input.option() % 4];
  options.ahead = options.layout == ReadLayout::two_files ? 1 + input.option() % 4 : 1;
  const std::string file1 = input.file();
  const std::string file2 = input.file();

  const SerialReads serial = read_serially(options, file1, file2);
  for (const bool read_ahead : {false, true}) {
    const SerialReads cut = cut_and_parse(options, file1, file2, read_ahead);
    if (cut.error != serial.error || !same_records(cut.mates1, serial.mates1) ||
        !same_records(cut.mates2, serial.mates2))
      fuzz::report_bug(std::string(read_ahead ? "cut reading ahead" : "cut") + " and parsed: '" +
                       cut.error.value_or("") + "' after " + std::to_string(cut.mates1.size()) +
                       " reads, serial: '" + serial.error.value_or("") + "' after " +
                       std::to_string(serial.mates1.size()));
  }
  return 0;
}

std::vector<std::string> fuzz_seeds() {
  const std::string r1 = fastq("p1/1", "ACGT") + "\n" + fastq("p2/1", "GGN") + fastq("p3/1", "");
  const std::string r2 = fastq("p1/2", "TT") + fastq("p2/2", "ACGTA") + fastq("p3/2", "C");
  const std::string interleaved =
      fastq("a/1", "AC") + fastq("a/2", "GT") + fastq("b/1", "A") + fastq("b/2", "C");
  const std::string fasta = ">s1 d\nACGT\nAC\n\n>s2\n>s3\nNNNN\r\n";
  return {
      fuzz::make_input({"\x00\x02\x00\x03", 4}, {r1}),
      fuzz::make_input({"\x01\x01\x05\x00", 4}, {interleaved}),
      fuzz::make_input({"\x02\x02\x00\x01\x02", 5}, {r1, r2}),
      fuzz::make_input({"\x02\x07\x30\x03\x01", 5}, {r1, r2.substr(0, r2.size() - 9)}),
      fuzz::make_input({"\x02\x03\x00\x02\x03", 5},
                       {r1, test::gz_member(r2) + test::gz_member("")}),
      fuzz::make_input({"\x00\x04\x10\x02", 4}, {fasta}),
      fuzz::make_input({"\x02\x01\x00\x00\x00", 5}, {fasta, fasta}),
      fuzz::make_input({"\x01\x03\x00\x03", 4}, {interleaved + "@c/1\nA\n+\nI\n"}),
      fuzz::make_input({"\x02\x02\x00\x03\x01", 5}, {r1, "garbage\n" + r2}),
  };
}
