// Every kind of bad input is an InputError naming file, record and problem.
#include "catch.hpp"
#include "io_test_support.hpp"

using namespace metawarp::io;
using namespace metawarp::io::test;

namespace {

// Reads everything and returns the error; fails the test when none is thrown.
InputError read_error(const std::string& path) {
  try {
    read_all(path);
  } catch (const InputError& error) {
    return error;
  }
  FAIL("no InputError for " << path);
  throw std::logic_error("unreachable");
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

void check_error(const std::string& path, std::uint64_t record, const std::string& problem) {
  const InputError error = read_error(path);
  const std::string message = error.what();
  INFO(message);
  CHECK(error.file() == path);
  CHECK(error.record() == record);
  CHECK(contains(message, path + ": "));
  CHECK(contains(message, "record " + std::to_string(record) + ": "));
  CHECK(contains(message, problem));
}

const std::string good_reads = "@r1\nACGT\n+\nIIII\n@r2 x\nAC\n+r2 x\nII\n";

}  // namespace

TEST_CASE("quality length different from sequence length") {
  TempDir dir;
  const std::string path = dir.file("reads.fq");
  write_file(path, good_reads + "@r3\n" + std::string(100, 'A') + "\n+\n" + std::string(98, 'I') + "\n");
  check_error(path, 3, "quality length 98 differs from sequence length 100");
}

TEST_CASE("truncated FASTQ records") {
  TempDir dir;
  const std::string path = dir.file("truncated.fq");
  SECTION("no sequence line") {
    write_file(path, good_reads + "@r3\n");
    check_error(path, 3, "truncated record: sequence line missing");
  }
  SECTION("no '+' line") {
    write_file(path, good_reads + "@r3\nACGT\n");
    check_error(path, 3, "truncated record: '+' line missing");
  }
  SECTION("no quality line") {
    write_file(path, good_reads + "@r3\nACGT\n+\n");
    check_error(path, 3, "truncated record: quality line missing");
  }
  SECTION("a line missing in the middle: the next header is not a '+' line") {
    write_file(path, good_reads + "@r3\nACGT\n@r4\nACGT\n+\nIIII\n");
    check_error(path, 3, "expected '+' line");
  }
  SECTION("'+' line naming another read") {
    write_file(path, good_reads + "@r3\nACGT\n+r9\nIIII\n");
    check_error(path, 3, "'+' line does not repeat the header");
  }
  SECTION("a record not starting with '@'") {
    write_file(path, good_reads + ">r3\nACGT\n");
    check_error(path, 3, "expected '@' at the start of a FASTQ record");
  }
}

TEST_CASE("data before the first header") {
  TempDir dir;
  const std::string path = dir.file("headless.fa");
  write_file(path, "ACGTACGT\n>r1\nACGT\n");
  check_error(path, 1, "missing header");
}

TEST_CASE("binary garbage") {
  TempDir dir;
  const std::string path = dir.file("garbage.fa");
  SECTION("NUL byte in a FASTA sequence") {
    write_file(path, std::string(">a\nACGT\n>b\nAC\0GT\n", 17));
    check_error(path, 2, "invalid byte 0x00 in sequence");
  }
  SECTION("non-ASCII byte in a sequence") {
    write_file(path, ">a\nACGT\n>b\nACGT\nAC\xff" "GT\n");
    check_error(path, 2, "invalid byte 0xff in sequence");
  }
  SECTION("a space inside a sequence line") {
    write_file(path, ">a\nAC GT\n");
    check_error(path, 1, "invalid character ' ' in sequence");
  }
  SECTION("a FASTQ header or digits inside a FASTA sequence") {
    write_file(path, ">a\nACGT\n>b\nACGT\n@r1\nACGT\n");
    check_error(path, 2, "invalid character '@' in sequence");
    write_file(path, ">a\nACGT\n>b\nAC12GT\n");
    check_error(path, 2, "invalid character '1' in sequence");
  }
  SECTION("gaps, stops and IUPAC codes are sequence characters") {
    write_file(path, ">a\nAC-GT*nRyK.\n");
    REQUIRE(read_all(path).size() == 1);
  }
  SECTION("control byte in a header") {
    write_file(path, ">a\nACGT\n>b\x01name\nACGT\n");
    check_error(path, 2, "invalid byte 0x01 in header");
  }
  SECTION("control byte in a FASTQ quality") {
    write_file(path, good_reads + "@r3\nACGT\n+\nII\x07I\n");
    check_error(path, 3, "invalid byte 0x07 in quality");
  }
  SECTION("a binary file") {
    std::mt19937_64 random(20);
    std::string bytes(4096, '\0');
    for (char& byte : bytes) byte = static_cast<char>(random() % 256);
    bytes[0] = '\x03';
    write_file(path, bytes);
    check_error(path, 1, "binary data, not FASTA or FASTQ");
  }
}

TEST_CASE("corrupt or truncated gzip streams are errors, not an early end") {
  TempDir dir;
  std::mt19937_64 random(21);
  std::vector<Truth> truth;
  for (int i = 0; i < 200; ++i) truth.push_back({numbered("g", i), random_bases(random, 5000), ""});
  const std::string text = to_fasta(truth, 60);
  const std::string path = dir.file("bad.fa.gz");
  write_gzip(path, {text});
  const std::string good = read_file(path);
  REQUIRE(good.size() > 1000);

  SECTION("truncated in the middle") {
    write_file(path, good.substr(0, good.size() / 2));
    const InputError error = read_error(path);
    INFO(error.what());
    CHECK(contains(error.what(), path + ": record "));
    CHECK(contains(error.what(), "truncated gzip stream"));
    CHECK(error.record() > 1);
  }
  SECTION("truncated inside the trailer (checksum missing)") {
    write_file(path, good.substr(0, good.size() - 3));
    const InputError error = read_error(path);
    CHECK(contains(error.what(), "truncated gzip stream"));
  }
  SECTION("corrupted deflate data, found where it is") {
    std::string bad = good;
    bad[10] |= 0x06;  // the first deflate block (after the 10-byte gzip header): reserved type 3
    write_file(path, bad);
    CHECK(std::string(read_error(path).what()) == path + ": record 1: corrupt gzip stream: invalid block type");
  }
  SECTION("corrupted deflate data, found only by the checksum") {
    // What zlib decodes before it notices is parsed like any other bytes:
    // here the garbage is seen first, as it would be in a larger file.
    std::string bad = good;
    for (std::size_t i = bad.size() / 3; i < bad.size() / 3 + 16; ++i) bad[i] = static_cast<char>(~bad[i]);
    write_file(path, bad);
    const InputError error = read_error(path);
    INFO(error.what());
    CHECK(contains(error.what(), path + ": record "));
    CHECK(error.record() > 1);
  }
  SECTION("wrong checksum") {
    std::string bad = good;
    bad[bad.size() - 6] = static_cast<char>(~bad[bad.size() - 6]);  // inside the CRC-32
    write_file(path, bad);
    CHECK(contains(read_error(path).what(), "corrupt gzip stream"));
  }
}

TEST_CASE("bytes after the end of a gzip stream are an error of the file, not of a record") {
  TempDir dir;
  const std::string path = dir.file("reads.fq.gz");
  for (const std::string& text : {std::string("@r1\nACGT\n+\nIIII\n"), std::string(">r1\nACGT\n")}) {
    write_gzip(path, {text});
    const std::string good = read_file(path);
    for (const std::string& trailing : {std::string("trailing text"), std::string(1, '\x1f'),
                                        std::string("\x1f\x8c"), std::string(100, '\0') + "x"}) {
      write_file(path, good + trailing);
      const InputError error = read_error(path);
      const std::size_t at = good.size() + trailing.find_first_not_of('\0');
      CHECK(std::string(error.what()) == path + ": unexpected data after the end of the gzip stream (at compressed byte " +
                                             std::to_string(at) + ")");
      CHECK(error.record() == 0);
    }
  }
}

TEST_CASE("zero bytes after the last gzip member are padding, as for gzip -d") {
  TempDir dir;
  const std::string path = dir.file("padded.fa.gz");
  const std::vector<Truth> truth = {{"a", "ACGT", ""}, {"b", "GG", ""}};
  write_gzip(path, {to_fasta(truth, 0), ""});  // an empty member last, as bgzip writes
  write_file(path, read_file(path) + std::string(5000, '\0'));
  CHECK(same_records(read_all(path), truth));
}

TEST_CASE("a missing file or a directory is an error naming it") {
  TempDir dir;
  const std::string missing = dir.file("no_such_reads.fq");
  try {
    SequenceReader reader(missing);
    FAIL("opened a missing file");
  } catch (const InputError& error) {
    CHECK(contains(error.what(), missing + ": cannot open"));
    CHECK(error.record() == 0);
  }
  const InputError error = read_error(dir.path().string());
  CHECK(contains(error.what(), dir.path().string() + ": "));
}
