// SequenceReader on any bytes, plain or gzip. Oracles: the records and the
// error do not depend on how many bytes each read() delivers, and the input
// compressed by the harness (one or two gzip members, an empty one between)
// reads exactly as the plain input.
//
// Input: one option byte (read size, where to split the gzip members), then
// the file's bytes, which may themselves be gzip.
#include <optional>

#include "fuzz_harness.hpp"
#include "io/decode/byte_source.hpp"
#include "io/parse/sequence_reader.hpp"
#include "serial_reads.hpp"
#include "temp_files.hpp"
#include "test_sources.hpp"

using namespace metawarp;
using io::SequenceRecord;
using io::test::same_records;

namespace {

struct Outcome {
  std::vector<SequenceRecord> records;
  std::string error;
};

Outcome read(const std::string& file, std::size_t max_read) {
  Outcome outcome;
  outcome.error = fuzz::documented_error_of([&] {
    auto source = io::detect_compression(std::make_unique<io::test::MemorySource>(file, max_read));
    io::SequenceReader reader(std::move(source), "input");
    SequenceRecord record;
    while (reader.next(record)) outcome.records.push_back(record);
  });
  return outcome;
}

void check_same(const Outcome& expected, const Outcome& got, const char* what) {
  if (got.error != expected.error || !same_records(got.records, expected.records))
    fuzz::report_bug(std::string(what) + ": '" + got.error + "' after " +
                     std::to_string(got.records.size()) + " records, expected '" + expected.error +
                     "' after " + std::to_string(expected.records.size()));
}

std::string fastq(const std::string& id, const std::string& bases, const std::string& end = "\n") {
  return "@" + id + end + bases + end + "+" + end + std::string(bases.size(), 'I') + end;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::InputBytes input(data, size);
  const std::uint8_t options = input.option();
  const std::string file = input.rest();
  static constexpr std::size_t read_sizes[] = {1, 2, 3, 7, 64, 4093};

  const Outcome whole = read(file, std::string::npos);
  check_same(whole, read(file, read_sizes[options % 6]), "small reads");
  if (file.size() >= 2 && file[0] == '\x1f' && file[1] == '\x8b') return 0;  // gzip already

  const std::size_t split = file.empty() ? 0 : (options >> 3) * 31 % file.size();
  const std::string members = test::gz_member(file.substr(0, split)) + test::gz_member("") +
                              test::gz_member(file.substr(split));
  check_same(whole, read(members, read_sizes[(options >> 1) % 6]), "gzip members");
  return 0;
}

std::vector<std::string> fuzz_seeds() {
  const std::vector<std::string> files = {
      "",
      "\n\n",
      ">seq1 description\nACGTACGTNNacgt\nRYKM-*.\n>seq2\n\n>seq3\nAC\r\nGT\r\n",
      ">only header",
      "@r1/1 x\nACGT\n+\nIIII\n@r2\nAC\n+r2\nII\n\n@r3\n\n+\n\n",
      fastq("crlf", "ACGTN", "\r\n") + fastq("second", "GG", "\r\n"),
      "@r1\nACGT\n+\nII\n",        // quality too short
      "@r1\nACGT\n",               // truncated
      ">a\nAC GT\n",               // space in a sequence
      ">a\x01\nACGT\n",            // control byte in a header
      "ACGT\n>late header\nAC\n",  // data before the first header
      std::string("\x03\x00\xff\xfe binary", 11),
      ">a\nACGT\n@not fasta\n",
      "@r\nAC\n-\nII\n",  // not a '+' line
  };
  std::vector<std::string> seeds;
  for (std::size_t i = 0; i < files.size(); ++i) {
    seeds.push_back(fuzz::make_input(std::string(1, char(i * 37)), {files[i]}));
  }
  // gzip inputs: BGZF-like members with an empty last one, zero padding,
  // data after the end, a truncated member.
  const std::string fasta = files[2];
  const std::string members =
      test::gz_member(fasta.substr(0, 20)) + test::gz_member(fasta.substr(20));
  for (const std::string& gzip : {members + test::gz_member(""), members + std::string(8, '\0'),
                                  members + "trailing", members.substr(0, members.size() - 5)}) {
    seeds.push_back(fuzz::make_input("\x05", {gzip}));
  }
  return seeds;
}
