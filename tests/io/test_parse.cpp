// Well-formed FASTA and FASTQ: parsed content must equal the generated truth.
#include "catch.hpp"
#include "io_test_support.hpp"

using namespace metawarp::io;
using namespace metawarp::io::test;

TEST_CASE("multi-line FASTA of any line width parses to the generated records") {
  TempDir dir;
  std::mt19937_64 random(1);
  const auto truth = random_fasta_truth(random, 50, 1000);
  const auto width = GENERATE(values<std::size_t>({0, 1, 7, 60, 80}));
  const std::string path = dir.file("multi.fa");
  write_file(path, to_fasta(truth, width));
  CHECK(same_records(read_all(path), truth));

  SequenceReader reader(path);
  SequenceRecord record;
  while (reader.next(record)) {
  }
  CHECK(reader.format() == Format::fasta);
  CHECK(reader.records_read() == truth.size());
  CHECK(reader.bytes_consumed() == fs::file_size(path));
}

TEST_CASE("CRLF line ends are removed from headers, sequences and qualities") {
  TempDir dir;
  std::mt19937_64 random(2);
  const auto fasta_truth = random_fasta_truth(random, 20, 500);
  write_file(dir.file("crlf.fa"), to_fasta(fasta_truth, 60, "\r\n"));
  CHECK(same_records(read_all(dir.file("crlf.fa")), fasta_truth));

  const auto fastq_truth = random_fastq_truth(random, 20);
  write_file(dir.file("crlf.fq"), to_fastq(fastq_truth, true, "\r\n"));
  CHECK(same_records(read_all(dir.file("crlf.fq")), fastq_truth));
}

TEST_CASE("lower-case bases, IUPAC codes and N are kept as read") {
  TempDir dir;
  std::mt19937_64 random(3);
  const auto truth = random_fasta_truth(random, 30, 400, "ACGTNacgtnRYSWKMBDHVryswkmbdhv-*");
  write_file(dir.file("iupac.fa"), to_fasta(truth, 70));
  CHECK(same_records(read_all(dir.file("iupac.fa")), truth));
}

TEST_CASE("empty records have an empty sequence and keep their number") {
  TempDir dir;
  const std::vector<Truth> truth = {
      {"empty_first", "", ""}, {"full", "ACGTACGT", ""}, {"empty_middle", "", ""},
      {"empty_middle2", "", ""}, {"full2", "GGCC", ""}, {"empty_last", "", ""}};
  write_file(dir.file("empty.fa"), to_fasta(truth, 3));
  CHECK(same_records(read_all(dir.file("empty.fa")), truth));
  // An empty header line is still a record.
  write_file(dir.file("no_name.fa"), ">\nACGT\n>\n");
  const auto parsed = read_all(dir.file("no_name.fa"));
  REQUIRE(parsed.size() == 2);
  CHECK(parsed[0].header.empty());
  CHECK(parsed[0].sequence == "ACGT");
  CHECK(parsed[1].sequence.empty());
}

TEST_CASE("blank lines and a missing final line end are not data") {
  TempDir dir;
  write_file(dir.file("blank.fa"), "\n\n>a x\nAC\n\nGT\n\n\n>b\nTT");
  const auto parsed = read_all(dir.file("blank.fa"));
  REQUIRE(parsed.size() == 2);
  CHECK(parsed[0].header == "a x");
  CHECK(parsed[0].sequence == "ACGT");
  CHECK(parsed[1].sequence == "TT");

  write_file(dir.file("last.fq"), "@r\nACG\n+\nIII");
  const auto reads = read_all(dir.file("last.fq"));
  REQUIRE(reads.size() == 1);
  CHECK(reads[0].quality == "III");
}

TEST_CASE("an empty file, or one of blank lines, holds zero records") {
  TempDir dir;
  const std::string content = GENERATE(values<std::string>({"", "\n", "\r\n\n\r\n"}));
  write_file(dir.file("empty.fa"), content);
  SequenceReader reader(dir.file("empty.fa"));
  SequenceRecord record;
  CHECK_FALSE(reader.next(record));
  CHECK_FALSE(reader.next(record));
  CHECK(reader.records_read() == 0);
  std::vector<SequenceRecord> batch;
  CHECK(reader.next_batch(batch, 10, 1000) == 0);
  CHECK(batch.empty());
}

TEST_CASE("FASTQ with and without the header repeated on the '+' line") {
  TempDir dir;
  std::mt19937_64 random(4);
  const auto truth = random_fastq_truth(random, 200);
  const bool repeat = GENERATE(false, true);
  write_file(dir.file("reads.fq"), to_fastq(truth, repeat));
  CHECK(same_records(read_all(dir.file("reads.fq")), truth));
  SequenceReader reader(dir.file("reads.fq"));
  SequenceRecord record;
  REQUIRE(reader.next(record));
  CHECK(reader.format() == Format::fastq);
  // Quality strings may begin with '@' and '+': they are never taken for headers.
  write_file(dir.file("at.fq"), "@r1\nACGT\n+\n@@+@\n@r2\nAC\n+r2\n+@\n");
  const auto parsed = read_all(dir.file("at.fq"));
  REQUIRE(parsed.size() == 2);
  CHECK(parsed[0].quality == "@@+@");
  CHECK(parsed[1].quality == "+@");
}

TEST_CASE("id is the header up to the first space or tab") {
  SequenceRecord record;
  record.header = "NC_000913.3 Escherichia coli";
  CHECK(record.id() == "NC_000913.3");
  record.header = "read7/1\tbarcode";
  CHECK(record.id() == "read7/1");
  record.header = "plain";
  CHECK(record.id() == "plain");
  record.header = "";
  CHECK(record.id().empty());
}

TEST_CASE("records of tens of Mbp, on many lines or on one") {
  TempDir dir;
  std::mt19937_64 random(5);
  const std::vector<Truth> truth = {{"chr1 big", random_bases(random, 50'000'000, "ACGTN"), ""},
                                    {"chr2", random_bases(random, 1000), ""}};
  const auto width = GENERATE(values<std::size_t>({0, 60}));
  write_file(dir.file("long.fa"), to_fasta(truth, width));
  CHECK(same_records(read_all(dir.file("long.fa")), truth));
}

TEST_CASE("thousands of records, read one by one and in batches") {
  TempDir dir;
  std::mt19937_64 random(6);
  const auto truth = random_fasta_truth(random, 5000, 200);
  write_file(dir.file("many.fa"), to_fasta(truth, 50));
  CHECK(same_records(read_all(dir.file("many.fa")), truth));

  SECTION("next_batch stops at max_records") {
    SequenceReader reader(dir.file("many.fa"));
    std::vector<SequenceRecord> all;
    std::size_t batches = 0;
    while (true) {
      const std::size_t before = all.size();
      const std::size_t got = reader.next_batch(all, 64, std::size_t(-1));
      CHECK(all.size() == before + got);
      if (got == 0) break;
      ++batches;
      CHECK((got == 64 || all.size() == truth.size()));
    }
    CHECK(batches == (truth.size() + 63) / 64);
    CHECK(same_records(all, truth));
  }
  SECTION("next_batch stops once max_bases is reached, with at least one record") {
    SequenceReader reader(dir.file("many.fa"));
    std::vector<SequenceRecord> all;
    const std::size_t max_bases = 1000;
    while (true) {
      std::vector<SequenceRecord> batch;
      const std::size_t got = reader.next_batch(batch, 1'000'000, max_bases);
      if (got == 0) break;
      REQUIRE(batch.size() == got);
      std::size_t bases = 0;
      for (std::size_t i = 0; i + 1 < batch.size(); ++i) bases += batch[i].sequence.size();
      CHECK(bases < max_bases);  // the limit was not reached before the last record
      all.insert(all.end(), batch.begin(), batch.end());
      if (all.size() < truth.size()) CHECK(bases + batch.back().sequence.size() >= max_bases);
    }
    CHECK(same_records(all, truth));
  }
  SECTION("a zero base budget still yields one record per batch") {
    SequenceReader reader(dir.file("many.fa"));
    std::vector<SequenceRecord> batch;
    CHECK(reader.next_batch(batch, 100, 0) == 1);
    CHECK(reader.next_batch(batch, 0, 100) == 1);
    CHECK(batch.size() == 2);
  }
}

TEST_CASE("a reader can be moved while reading") {
  TempDir dir;
  write_file(dir.file("m.fa"), ">a\nAC\n>b\nGT\n");
  SequenceReader first(dir.file("m.fa"));
  SequenceRecord record;
  REQUIRE(first.next(record));
  SequenceReader second(std::move(first));
  REQUIRE(second.next(record));
  CHECK(record.header == "b");
  CHECK(record.number == 2);
  CHECK_FALSE(second.next(record));
}
