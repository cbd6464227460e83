// Reading ahead (io/cut/block_read_ahead.hpp, RecordBlockSplitter's read_ahead):
// the read ahead hands out a source's bytes in order whatever the reads,
// takes and carries, and what the source threw after them; blocks cut while
// the next block's bytes are read on another thread are those of a serial
// cut, byte for byte: from a plain file through the parallel file source,
// whatever the file's size around its parts and the reads; from sources
// that fail part-way (the same bytes before the error, the error in the same
// block, or thrown by the same call); with limits that change from block to
// block, extended and even blocks (interleaved pairs). A splitter dropped
// with a read in flight waits for it and ends. And ByteBuffer's front room,
// where a carry goes.
#include <fcntl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>

#include "catch.hpp"
#include "io/cut/block_read_ahead.hpp"
#include "io/cut/cut_source.hpp"
#include "io/cut/read_block_cutter.hpp"
#include "io/cut/record_blocks.hpp"
#include "io/decode/byte_buffer.hpp"
#include "cut_test_support.hpp"
#include "io_test_support.hpp"
#include "test_effort.hpp"
#include "test_sources.hpp"

using namespace metawarp::io;
using namespace metawarp::io::test;

namespace {

constexpr std::size_t MiB = std::size_t{1} << 20;

// Waits (5 s at most) until a read is in flight.
void wait_for_read(const std::atomic<int>& reading) {
  for (int i = 0; i < 5000 && reading == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

// `bytes` in reads of at most `max_read`; a read that starts at `fail_at`
// or later throws: a SourceError (a read error) or, with `other`, a
// std::runtime_error. A read across `fail_at` returns the bytes before it.
class FailingSource final : public ByteSource {
 public:
  FailingSource(std::string bytes, std::size_t fail_at, std::size_t max_read, bool other = false)
      : bytes_(std::move(bytes), max_read), fail_at_(fail_at), other_(other) {}

  std::size_t read(char* destination, std::size_t capacity) override {
    const std::uint64_t used = bytes_.raw_bytes_read();
    if (used >= fail_at_) {
      if (other_) throw std::runtime_error("not a read error");
      throw SourceError("read error: Input/output error");
    }
    return bytes_.read(destination, std::min<std::uint64_t>(capacity, fail_at_ - used));
  }
  bool compressed() const override { return false; }
  std::uint64_t raw_bytes_read() const override { return bytes_.raw_bytes_read(); }

 private:
  MemorySource bytes_;
  std::size_t fail_at_;
  bool other_;
};

// MemorySource that takes `delay` per read and counts the reads that have
// not returned yet.
class SlowSource final : public ByteSource {
 public:
  SlowSource(std::string bytes, std::chrono::milliseconds delay, std::atomic<int>& reading)
      : bytes_(std::move(bytes)), delay_(delay), reading_(reading) {}

  std::size_t read(char* destination, std::size_t capacity) override {
    ++reading_;
    std::this_thread::sleep_for(delay_);
    const std::size_t n = bytes_.read(destination, capacity);
    --reading_;
    return n;
  }
  bool compressed() const override { return false; }
  std::uint64_t raw_bytes_read() const override { return bytes_.raw_bytes_read(); }

 private:
  MemorySource bytes_;
  std::chrono::milliseconds delay_;
  std::atomic<int>& reading_;
};

// Limits that change from block to block, as a paired query's mates 2 get
// (their record count follows mates 1).
struct Limits {
  std::size_t records;
  std::size_t bytes;
};
Limits random_limits(std::mt19937_64& random, std::size_t most_records, std::size_t most_bytes) {
  return {1 + random() % most_records,
          random() % 2 ? RecordBlockSplitter::no_byte_limit : 1 + random() % most_bytes};
}

}  // namespace

TEST_CASE("a byte buffer's front room takes bytes without moving its contents", "[io][cut]") {
  ByteBuffer buffer;
  buffer.clear_with_front_room(10, 100);
  CHECK(buffer.front_room() == 10);
  CHECK(buffer.capacity() >= 100);
  buffer.append("world", 5);
  const char* world = buffer.data();
  buffer.prepend("hello ", 6);
  CHECK(buffer.view() == "hello world");
  CHECK(buffer.data() + 6 == world);
  CHECK(buffer.front_room() == 4);
  buffer.prepend("0123456", 7);  // more than the room: the contents move
  CHECK(buffer.view() == "0123456hello world");
  CHECK(buffer.front_room() == 0);
  buffer.drop_front(7);
  CHECK(buffer.view() == "hello world");
  CHECK(buffer.front_room() == 7);
  buffer.reserve(buffer.capacity() + 1);  // moved to a larger buffer: the room goes
  CHECK(buffer.view() == "hello world");
  CHECK(buffer.front_room() == 0);
  buffer.clear();
  CHECK(buffer.empty());
  CHECK(buffer.front_room() == 0);
}

TEST_CASE("a read ahead hands out the source's bytes in order, then what it threw", "[io][cut]") {
  std::mt19937_64 random(70);
  std::string text(3 * MiB + 17, '\0');
  for (char& c : text) c = char(random());
  int takes = 0;  // that took bytes: in most rounds
  const int rounds = metawarp::test::rounds(40);
  for (int round = 0; round < rounds; ++round) {
    const std::size_t fail_at = round % 3 == 0 ? text.size() + 1 : random() % (text.size() + 1);
    const std::size_t max_read = round % 2 ? text.size() : 1 + random() % 300'000;
    FailingSource source(text, fail_at, max_read);
    BlockReadAhead ahead(source);
    // `out`: the stream so far. A take puts its last bytes back in front
    // (the carry a block leaves to the next) and appends the block.
    std::string out;
    ByteBuffer block;
    std::string buffer(400'000, '\0');
    std::string error;
    while (error.empty()) {
      const unsigned step = unsigned(random() % 3);
      if (step == 0 && ahead.idle()) {
        ahead.start(1 + random() % 400'000, random() % 2000, random() % 500'000);
        continue;
      }
      try {
        if (step == 1) {
          const std::size_t carry = std::min<std::size_t>(out.size(), random() % 3000);
          const std::string kept = out.substr(out.size() - carry);
          out.resize(out.size() - carry);
          block.clear();
          if (ahead.take(block, kept)) {
            ++takes;
            REQUIRE(block.view().substr(0, carry) == kept);
            out.append(block.view());
          } else {
            out.append(kept);
          }
          continue;
        }
        const std::size_t got = ahead.read(buffer.data(), 1 + random() % buffer.size());
        if (got == 0) break;
        out.append(buffer.data(), got);
      } catch (const SourceError& e) {
        error = e.what();
      }
    }
    INFO("round " << round << ", failing at " << fail_at << ", reads of " << max_read);
    if (fail_at < text.size()) {
      CHECK(error == "read error: Input/output error");
      CHECK(out.size() == fail_at);
    }
    CHECK(out == text.substr(0, fail_at));
  }
  CHECK(takes > rounds);
}

TEST_CASE("a file cut reading ahead gives its bytes, in the blocks of a serial cut", "[io][cut]") {
  TempDir dir;
  std::mt19937_64 random(71);
  const std::string reads = reads_text(random, 9 * MiB + 4096);
  const std::string path = dir.file("reads.fq");
  // Sizes around the parallel reads' 2 MiB parts and the reads below.
  for (const std::size_t size : {2 * MiB - 1, 2 * MiB, 2 * MiB + 1, 4 * MiB - 5, 4 * MiB + 77, 9 * MiB + 3}) {
    const std::string text = reads.substr(0, size);
    write_file(path, text);
    for (const std::size_t max_read : {MiB, 4 * MiB, parallel_read_bytes}) {
      for (const unsigned threads : {1u, 2u, 4u}) {
        RecordBlockSplitter serial(std::make_unique<MemorySource>(text), "reads.fq");
        RecordBlockSplitter ahead(make_parallel_file_source(open_read(path), threads), "reads.fq", max_read,
                                  ScanThreads{threads, std::size_t{64} << 10}, /*read_ahead=*/true);
        RecordBlock expected;
        RecordBlock got;
        std::string bytes;
        std::uint64_t raw = 0;
        bool all_same = true;
        bool raw_in_order = true;
        while (true) {
          // Blocks of about 0.1 to 4 MiB: reads below, at and above the parts.
          const Limits limits = random_limits(random, 25'000, 3 * MiB);
          serial.next_block(expected, limits.records, limits.bytes);
          ahead.next_block(got, limits.records, limits.bytes);
          all_same = all_same && same_blocks(got, expected);
          raw_in_order = raw_in_order && ahead.raw_bytes_read() >= raw && ahead.raw_bytes_read() <= size;
          raw = ahead.raw_bytes_read();
          bytes.append(got.bytes.view());
          if (expected.empty() || got.empty() || !all_same) break;
        }
        INFO("file of " << size << " bytes, reads of " << max_read << ", " << threads << " threads");
        CHECK(all_same);
        CHECK(raw_in_order);
        CHECK(bytes.size() == text.size());
        CHECK(bytes == text);
        CHECK(ahead.exhausted());
        CHECK(ahead.raw_bytes_read() == size);
      }
    }
  }
}

TEST_CASE("blocks cut reading ahead from a failing source are those of a serial cut", "[io][cut]") {
  std::mt19937_64 random(72);
  const std::string text = reads_text(random, 400'000);
  for (int round = 0; round < metawarp::test::rounds(80); ++round) {
    // A read error anywhere (or none), reads of any size, the error a read
    // error or another exception.
    const std::size_t fail_at = round % 8 == 0 ? text.size() + 1 : random() % (text.size() + 1);
    const std::size_t max_read = round % 2 ? text.size() : 1 + random() % 50'000;
    const bool other = round % 5 == 4;
    RecordBlockSplitter serial(std::make_unique<FailingSource>(text, fail_at, max_read, other), "reads.fq",
                               64 << 10);
    RecordBlockSplitter ahead(std::make_unique<FailingSource>(text, fail_at, max_read, other), "reads.fq",
                              64 << 10, ScanThreads{2, 4096}, /*read_ahead=*/true);
    RecordBlock expected;
    RecordBlock got;
    bool all_same = true;
    bool read_error = false;
    int thrown = 0;  // calls that threw: by both splitters, the same call
    for (int block = 0; block < 100'000 && all_same; ++block) {
      const Limits limits = random_limits(random, 1500, 300'000);
      const int step = int(random() % 4);  // 0: extended; 1: made even
      std::string serial_threw, ahead_threw;
      // Made even: by RecordCount::even reading ahead, by extending the
      // block serially (what RecordCount::even stands for).
      const auto cut = [&](RecordBlockSplitter& splitter, RecordBlock& into, std::string& threw) {
        const bool reading_ahead = &splitter == &ahead;
        try {
          splitter.next_block(into, limits.records, limits.bytes,
                              step == 1 && reading_ahead ? RecordBlockSplitter::RecordCount::even
                                                         : RecordBlockSplitter::RecordCount::any);
          if (step == 0 && !into.ends_input_early()) splitter.extend_block(into, random() % 3);
          if (step == 1 && !reading_ahead && into.records % 2 == 1 && !into.ends_input_early())
            splitter.extend_block(into, 1);
        } catch (const std::runtime_error& error) {
          threw = error.what();
        }
      };
      std::mt19937_64 same = random;  // both extend by the same count
      cut(serial, expected, serial_threw);
      random = same;
      cut(ahead, got, ahead_threw);
      all_same = serial_threw == ahead_threw && (!serial_threw.empty() || same_blocks(got, expected));
      if (!serial_threw.empty()) {
        if (++thrown == 3) break;  // throws again where retried: enough
        continue;
      }
      read_error = read_error || expected.read_error.has_value();
      if (expected.empty()) break;
    }
    INFO("round " << round << ", failing at " << fail_at << " of " << text.size() << ", reads of "
                   << max_read);
    CHECK(all_same);
    if (fail_at < text.size()) CHECK((other ? thrown > 0 : read_error));
  }
}

TEST_CASE("a splitter dropped with a read ahead in flight waits for it", "[io][cut]") {
  std::mt19937_64 random(73);
  const std::string text = reads_text(random, 2 * MiB);
  std::atomic<int> reading{0};
  {
    RecordBlockSplitter splitter(std::make_unique<SlowSource>(text, std::chrono::milliseconds(50), reading),
                                 "reads.fq", MiB, ScanThreads{}, /*read_ahead=*/true);
    RecordBlock block;
    splitter.next_block(block, 1000);
    REQUIRE(block.records == 1000);
    // The next block's bytes are being read now, into the splitter's buffer.
    wait_for_read(reading);
    CHECK(reading == 1);
  }
  CHECK(reading == 0);

  // And left by an exception of the caller's: the same.
  try {
    RecordBlockSplitter splitter(std::make_unique<SlowSource>(text, std::chrono::milliseconds(50), reading),
                                 "reads.fq", MiB, ScanThreads{}, /*read_ahead=*/true);
    RecordBlock block;
    splitter.next_block(block, 1000);
    wait_for_read(reading);
    throw std::runtime_error("the consumer stops");
  } catch (const std::runtime_error&) {
  }
  CHECK(reading == 0);
}

TEST_CASE("a splitter reading ahead counts only the bytes it has read", "[io][cut]") {
  std::mt19937_64 random(74);
  const std::string text = reads_text(random, MiB);
  std::atomic<int> reading{0};
  RecordBlockSplitter splitter(std::make_unique<SlowSource>(text, std::chrono::milliseconds(20), reading),
                               "reads.fq", MiB, ScanThreads{}, /*read_ahead=*/true);
  RecordBlock block;
  splitter.next_block(block, 100);
  // One read so far; the read ahead in flight is not counted.
  CHECK(splitter.raw_bytes_read() >= block.bytes.size());
  CHECK(splitter.raw_bytes_read() < text.size() / 2);
  std::uint64_t cut = block.bytes.size();
  while (true) {
    splitter.next_block(block, 100);
    if (block.empty()) break;
    cut += block.bytes.size();
    CHECK(splitter.raw_bytes_read() >= cut);
  }
  CHECK(cut == text.size());
  CHECK(splitter.raw_bytes_read() == text.size());
}

TEST_CASE("interleaved pairs cut reading ahead are the batches of a serial cut", "[io][cut]") {
  std::mt19937_64 random(75);
  const std::string text = reads_text(random, 600'000);  // the mates of a pair: records 2i+1, 2i+2
  for (const std::size_t max_read : {std::size_t{777}, std::size_t{1} << 16}) {
    const auto cutter_of = [&](bool read_ahead) {
      std::vector<RecordBlockSplitter> inputs;
      inputs.emplace_back(std::make_unique<MemorySource>(text, max_read), "reads.fq", 1 << 16,
                          ScanThreads{2, 4096}, read_ahead);
      return ReadBlockCutter(std::move(inputs), /*interleaved=*/true);
    };
    ReadBlockCutter serial = cutter_of(false);
    ReadBlockCutter ahead = cutter_of(true);
    ReadBlocks expected, got;
    bool all_same = true;
    bool even = true;  // every block but the last
    bool odd = false;  // the block before
    while (all_same) {
      // Byte limits of a few records: a block made even often.
      const std::size_t pairs = 1 + random() % 400;
      const std::size_t bytes = 1 + random() % 20'000;
      const bool more = serial.next(expected, pairs, bytes);
      all_same = ahead.next(got, pairs, bytes) == more && (!more || same_blocks(got.first, expected.first));
      if (!more) break;
      even = even && !odd;
      odd = got.first.records % 2 == 1;
    }
    INFO("reads of " << max_read);
    CHECK(all_same);
    CHECK(even);
  }
}
