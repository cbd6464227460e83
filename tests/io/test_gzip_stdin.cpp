// gzip detected from content (single and multi-member) and reading stdin.
#include <fcntl.h>
#include <unistd.h>

#include "catch.hpp"
#include "io_test_support.hpp"

using namespace metawarp::io;
using namespace metawarp::io::test;

namespace {

// Reads `path` through stdin ("-"): fd 0 points at the file meanwhile.
std::vector<SequenceRecord> read_all_from_stdin(const std::string& path) {
  const int saved = ::dup(STDIN_FILENO);
  const int file = ::open(path.c_str(), O_RDONLY);
  REQUIRE(saved >= 0);
  REQUIRE(file >= 0);
  ::dup2(file, STDIN_FILENO);
  ::close(file);
  std::vector<SequenceRecord> records;
  try {
    records = read_all("-");
  } catch (...) {
    ::dup2(saved, STDIN_FILENO);
    ::close(saved);
    throw;
  }
  ::dup2(saved, STDIN_FILENO);
  ::close(saved);
  return records;
}

}  // namespace

TEST_CASE("gzip is detected from the magic bytes, not the file name") {
  TempDir dir;
  std::mt19937_64 random(10);
  const auto truth = genome_like(random, 20, 3000);
  const std::string text = to_fasta(truth, 60);
  write_gzip(dir.file("compressed.fa"), {text});       // gzip without .gz
  write_file(dir.file("plain.fa.gz"), text);           // plain text named .gz
  CHECK(same_records(read_all(dir.file("compressed.fa")), truth));
  CHECK(same_records(read_all(dir.file("plain.fa.gz")), truth));

  SequenceReader reader(dir.file("compressed.fa"));
  SequenceRecord record;
  while (reader.next(record)) {
  }
  CHECK(reader.bytes_consumed() == text.size());  // uncompressed bytes
}

TEST_CASE("multi-member gzip (bgzip, concatenated files) is read to the end") {
  TempDir dir;
  std::mt19937_64 random(11);
  const auto truth = genome_like(random, 12, 200'000);  // several MiB: many buffer refills
  const std::string text = to_fasta(truth, 80);
  // Cut inside records and inside lines, with an empty member in between.
  std::vector<std::string> members;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t size = std::min(text.size() - at, 1 + random() % 700'000);
    members.push_back(text.substr(at, size));
    if (members.size() == 2) members.emplace_back();
    at += size;
  }
  REQUIRE(members.size() > 3);
  write_gzip(dir.file("multi.fa.gz"), members);
  CHECK(same_records(read_all(dir.file("multi.fa.gz")), truth));
}

TEST_CASE("gzip FASTQ and an empty gzip stream") {
  TempDir dir;
  std::mt19937_64 random(12);
  std::vector<Truth> truth;
  for (int i = 0; i < 3000; ++i) {
    truth.push_back({numbered("r", i), random_bases(random, 150), random_quality(random, 150)});
  }
  write_gzip(dir.file("reads.fq.gz"), {to_fastq(truth)});
  CHECK(same_records(read_all(dir.file("reads.fq.gz")), truth));

  write_gzip(dir.file("empty.fa.gz"), {""});
  CHECK(read_all(dir.file("empty.fa.gz")).empty());
}

TEST_CASE("\"-\" reads stdin, plain or gzip") {
  TempDir dir;
  std::mt19937_64 random(13);
  const auto truth = genome_like(random, 5, 10'000);
  write_file(dir.file("in.fa"), to_fasta(truth, 60));
  write_gzip(dir.file("in.fa.gz"), {to_fasta(truth, 60)});
  CHECK(same_records(read_all_from_stdin(dir.file("in.fa")), truth));
  CHECK(same_records(read_all_from_stdin(dir.file("in.fa.gz")), truth));
}
