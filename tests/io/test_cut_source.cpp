// The cutter's parallel file source (io/cut/cut_source.hpp): reads split over
// threads give the file's bytes in order, whatever the read sizes, and blocks
// cut through it (and scanned on several threads, io/cut/record_scan.hpp; more in
// test_record_scan.cpp) parse as a serial read of the file does. And its line-end
// search (io/cut/newline_scanner.hpp) against a plain one.
#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <thread>

#include "catch.hpp"
#include "io/cut/cut_source.hpp"
#include "io/cut/newline_scanner.hpp"
#include "io/cut/record_blocks.hpp"
#include "cut_test_support.hpp"
#include "io_test_support.hpp"

using namespace metawarp::io;
using namespace metawarp::io::test;

namespace {

// The message `f` throws (a SourceError), or "" when it throws none.
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const SourceError& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a parallel file source returns the file's bytes in order, the end once", "[io][cut]") {
  TempDir dir;
  std::mt19937_64 random(5);
  std::string content(13'000'007, '\0');
  for (char& c : content) c = char(random());
  write_file(dir.file("data"), content);
  for (const unsigned threads : {2u, 3u, 8u}) {
    auto source = make_parallel_file_source(open_read(dir.file("data")), threads);
    std::string read;
    std::string buffer(std::size_t(9) << 20, '\0');
    while (true) {
      // Sizes below, at and above what is split over threads.
      const std::size_t want = std::size_t(1) + random() % buffer.size();
      const std::size_t got = source->read(buffer.data(), want);
      REQUIRE(got <= want);
      if (got == 0) break;
      read.append(buffer.data(), got);
      CHECK(source->raw_bytes_read() == read.size());
    }
    CHECK(read == content);
    CHECK(source->read(buffer.data(), buffer.size()) == 0);
    CHECK_FALSE(source->compressed());
  }
}

TEST_CASE("a parallel file source names a read error", "[io][cut]") {
  TempDir dir;
  auto source = make_parallel_file_source(open_read(dir.path().string()), 4);  // a directory
  std::string buffer(std::size_t(8) << 20, '\0');
  CHECK(error_of([&] { source->read(buffer.data(), buffer.size()); }).find("read error") == 0);
  CHECK(error_of([&] { source->read(buffer.data(), 100); }).find("read error") == 0);
}

TEST_CASE("blocks cut through a parallel file source parse as a serial read does", "[io][cut]") {
  TempDir dir;
  std::mt19937_64 random(6);
  const std::string path = dir.file("reads.fq");
  write_file(path, reads_text(random, std::size_t(12) << 20));
  const std::vector<SequenceRecord> serial = read_all(path);
  for (const std::size_t batch : {std::size_t(1000), std::size_t(20000), std::size_t(1) << 20}) {
    // Read and scanned by 4 threads (pieces small enough for 4 per read).
    RecordBlockSplitter splitter(make_parallel_file_source(open_read(path), 4), path,
                                 std::size_t(16) << 20, ScanThreads{4, std::size_t(64) << 10});
    std::vector<SequenceRecord> parsed;
    RecordBlock block;
    std::uint64_t next_record = 1;
    while (true) {
      splitter.next_block(block, batch, std::size_t(5) << 20);
      if (block.empty()) break;
      CHECK(block.first_record == next_record);
      next_record += block.records;
      SequenceReader reader(block);
      SequenceRecord record;
      while (reader.next(record)) parsed.push_back(record);
    }
    REQUIRE(parsed.size() == serial.size());
    bool same = true;
    for (std::size_t i = 0; i < parsed.size(); ++i)
      same = same && parsed[i].header == serial[i].header && parsed[i].sequence == serial[i].sequence &&
             parsed[i].quality == serial[i].quality && parsed[i].number == serial[i].number;
    CHECK(same);
  }
}

TEST_CASE("the cutter opens stdin, missing and compressed files as open_byte_source does", "[io][cut]") {
  TempDir dir;
  CHECK(error_of([&] { open_cut_source(dir.file("missing.fq")); }).find("cannot open") == 0);
  write_gzip(dir.file("reads.fq.gz"), {"@r1\nACGT\n+\nIIII\n"});
  CutSource gzip = open_cut_source(dir.file("reads.fq.gz"));
  CHECK(gzip.source->compressed());
  CHECK(gzip.max_read_bytes == serial_read_bytes);
  CHECK(gzip.scan.threads == 1);
  write_file(dir.file("reads.fq"), "@r1\nACGT\n+\nIIII\n");
  CutSource plain = open_cut_source(dir.file("reads.fq"));
  CHECK_FALSE(plain.source->compressed());
  std::string text;
  char buffer[64];
  while (const std::size_t got = plain.source->read(buffer, sizeof buffer)) text.append(buffer, got);
  CHECK(text == "@r1\nACGT\n+\nIIII\n");
}

// A named pipe can be opened once only: a reader that opened it to look at
// it and closed it again would drop what the writer wrote, or kill the
// writer, and wait for another. On a machine with fewer than 8 hardware
// threads the cutter streams every file without looking, so this shows
// something there only with more.
TEST_CASE("the cutter opens a named pipe once", "[io][cut]") {
  TempDir dir;
  const std::string fifo = dir.file("reads.fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::string reads = "@r1\nACGT\n+\nIIII\n@r2\nGGCC\n+\nIIII\n";
  std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << reads; });
  std::string text;
  try {
    CutSource pipe = open_cut_source(fifo);
    char buffer[64];
    while (const std::size_t got = pipe.source->read(buffer, sizeof buffer)) text.append(buffer, got);
  } catch (...) {
    writer.join();
    throw;
  }
  writer.join();
  CHECK(text == reads);
}

TEST_CASE("the newline scanner finds what a plain search finds", "[io][cut]") {
  std::mt19937_64 random(7);
  for (int round = 0; round < 300; ++round) {
    // Sizes around the 64-byte windows, line ends sparse or dense.
    const std::size_t size = random() % 3 == 0 ? random() % 130 : random() % 5000;
    const unsigned density = 1 + unsigned(random() % 80);
    std::string text(size, 'A');
    for (char& c : text) c = random() % density == 0 ? '\n' : char('A' + random() % 4);
    NewlineScanner scanner(text.data(), text.size());
    std::size_t from = random() % (size + 2);
    bool same = true;
    while (true) {
      const std::size_t expected = from >= size ? std::string::npos : text.find('\n', from);
      const std::size_t found = scanner.find(from);
      same = same && (expected == std::string::npos ? found == NewlineScanner::npos : found == expected);
      if (found == NewlineScanner::npos) break;
      from = found + 1 + (random() % 4 == 0 ? random() % 100 : 0);  // sometimes skip ahead
    }
    CHECK(same);
  }
}
