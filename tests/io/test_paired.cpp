// Read pairs from two files or one interleaved file.
#include "io/parse/paired_reader.hpp"

#include "catch.hpp"
#include "io_test_support.hpp"

using namespace metawarp::io;
using namespace metawarp::io::test;

namespace {

std::vector<Truth> mates(std::mt19937_64& random, int count, const std::string& suffix) {
  std::vector<Truth> reads;
  for (int i = 0; i < count; ++i) {
    reads.push_back({numbered("frag", i) + suffix + " extra",
                     random_bases(random, 100), random_quality(random, 100)});
  }
  return reads;
}

std::vector<Truth> interleave(const std::vector<Truth>& first, const std::vector<Truth>& second) {
  std::vector<Truth> both;
  for (std::size_t i = 0; i < first.size(); ++i) {
    both.push_back(first[i]);
    both.push_back(second[i]);
  }
  return both;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("mates_match accepts equal ids and a trailing /1 /2 only") {
  CHECK(mates_match("r1", "r1"));
  CHECK(mates_match("r1/1", "r1/2"));
  CHECK(mates_match("a/b/1", "a/b/2"));
  CHECK_FALSE(mates_match("r1/1", "r2/2"));
  CHECK_FALSE(mates_match("r1/2", "r1/1"));  // swapped mates
  CHECK_FALSE(mates_match("r1.1", "r1.2"));
  CHECK_FALSE(mates_match("r1", "r10"));
  CHECK_FALSE(mates_match("r1/1", "r1"));
  CHECK_FALSE(mates_match("/1", "2"));
  CHECK(mates_match("/1", "/2"));
}

TEST_CASE("paired files yield the mates in order") {
  TempDir dir;
  std::mt19937_64 random(30);
  const std::string suffix1 = GENERATE(values<std::string>({"/1", ""}));
  const std::string suffix2 = suffix1.empty() ? "" : "/2";
  const auto first = mates(random, 500, suffix1);
  const auto second = mates(random, 500, suffix2);
  write_file(dir.file("r1.fq"), to_fastq(first));
  write_gzip(dir.file("r2.fq.gz"), {to_fastq(second)});

  PairedReader reader(dir.file("r1.fq"), dir.file("r2.fq.gz"));
  SequenceRecord mate1, mate2;
  std::vector<SequenceRecord> got1, got2;
  while (reader.next(mate1, mate2)) {
    got1.push_back(mate1);
    got2.push_back(mate2);
  }
  CHECK(same_records(got1, first));
  CHECK(same_records(got2, second));
  CHECK_FALSE(reader.next(mate1, mate2));
}

TEST_CASE("paired files with different names or counts are errors naming both files") {
  TempDir dir;
  std::mt19937_64 random(31);
  auto first = mates(random, 50, "/1");
  auto second = mates(random, 50, "/2");
  const std::string file1 = dir.file("left.fq");
  const std::string file2 = dir.file("right.fq");
  SequenceRecord mate1, mate2;

  SECTION("names differ") {
    second[17].header = "other/2";
    write_file(file1, to_fastq(first));
    write_file(file2, to_fastq(second));
    PairedReader reader(file1, file2);
    try {
      while (reader.next(mate1, mate2)) {
      }
      FAIL("no error");
    } catch (const InputError& error) {
      INFO(error.what());
      CHECK(contains(error.what(), file1));
      CHECK(contains(error.what(), file2));
      CHECK(contains(error.what(), "record 18: "));
      CHECK(contains(error.what(), "'frag17/1'"));
      CHECK(contains(error.what(), "'other/2'"));
    }
  }
  SECTION("counts differ") {
    const bool first_longer = GENERATE(true, false);
    (first_longer ? second : first).pop_back();
    write_file(file1, to_fastq(first));
    write_file(file2, to_fastq(second));
    PairedReader reader(file1, file2);
    try {
      while (reader.next(mate1, mate2)) {
      }
      FAIL("no error");
    } catch (const InputError& error) {
      INFO(error.what());
      CHECK(contains(error.what(), file1));
      CHECK(contains(error.what(), file2));
      CHECK(contains(error.what(), "record 50: "));
      CHECK(contains(error.what(), "has more records than"));
      CHECK(error.record() == 50);
    }
  }
}

TEST_CASE("interleaved files") {
  TempDir dir;
  std::mt19937_64 random(32);
  const auto first = mates(random, 100, "/1");
  const auto second = mates(random, 100, "/2");
  const std::string path = dir.file("inter.fq");
  SequenceRecord mate1, mate2;

  SECTION("well-formed") {
    write_file(path, to_fastq(interleave(first, second)));
    PairedReader reader(path);
    std::vector<SequenceRecord> got1, got2;
    while (reader.next(mate1, mate2)) {
      got1.push_back(mate1);
      got2.push_back(mate2);
    }
    REQUIRE(got1.size() == first.size());
    for (std::size_t i = 0; i < first.size(); ++i) {
      CHECK(got1[i].header == first[i].header);
      CHECK(got1[i].sequence == first[i].sequence);
      CHECK(got2[i].header == second[i].header);
      CHECK(got2[i].quality == second[i].quality);
    }
  }
  SECTION("odd number of records") {
    auto reads = interleave(first, second);
    reads.pop_back();
    write_file(path, to_fastq(reads));
    PairedReader reader(path);
    try {
      while (reader.next(mate1, mate2)) {
      }
      FAIL("no error");
    } catch (const InputError& error) {
      INFO(error.what());
      CHECK(contains(error.what(), path + ": record 200: "));
      CHECK(contains(error.what(), "odd number of records"));
    }
  }
  SECTION("a mate out of order") {
    auto reads = interleave(first, second);
    std::swap(reads[10], reads[12]);  // frag6/1 now sits before frag5/2
    write_file(path, to_fastq(reads));
    PairedReader reader(path);
    try {
      while (reader.next(mate1, mate2)) {
      }
      FAIL("no error");
    } catch (const InputError& error) {
      INFO(error.what());
      CHECK(contains(error.what(), path + ": record 12: "));
      CHECK(contains(error.what(), "mates differ"));
    }
  }
}
