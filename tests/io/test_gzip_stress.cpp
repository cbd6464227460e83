// The parallel gzip decoder on a busy machine: many decodes of valid files
// on 2 to 8 threads, with every setting that changes how its threads meet
// (pieces in flight, piece and overlap sizes, block lengths, the serial
// decoder that takes over), must give the text and never an error. Races
// between its threads show only now and then (issue 25: one decode in 50
// failed a valid file), so this runs them 10,000 times, and under
// ThreadSanitizer in CI (.ci/run). METAWARP_GZIP_STRESS_DECODES sets
// another count.
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "chunked_gzip_support.hpp"
#include "gzip_writers.hpp"
#include "test_effort.hpp"

using namespace metawarp::io;
using namespace metawarp::io::test;

namespace {

struct File {
  std::string text, gzip, name;
};

// Small files of the two kinds of text, at three levels, with zlib's usual
// blocks and with short ones (many block starts per piece).
std::vector<File> stress_files() {
  std::mt19937_64 random(2025);
  const std::string periodic = periodic_text(random, 500000);
  const std::string fastq = genome_like_fastq(random, 700);
  std::vector<File> files;
  for (const auto& [text, kind] : {std::pair{periodic, "periodic"}, std::pair{fastq, "genome-like FASTQ"}})
    for (const int level : {1, 6, 9})
      for (const int memory_level : {2, 8})
        files.push_back({text, gzip_member(text, level, Z_DEFAULT_STRATEGY, "", memory_level),
                         std::string(kind) + ", level " + std::to_string(level) + ", memory level " +
                             std::to_string(memory_level)});
  return files;
}

std::size_t decodes() {
  if (const char* count = std::getenv("METAWARP_GZIP_STRESS_DECODES")) return std::strtoull(count, nullptr, 10);
  return static_cast<std::size_t>(metawarp::test::rounds(10000));
}

}  // namespace

TEST_CASE("thousands of decodes of valid gzip files on 2 to 8 threads give the text and no error", "[io][gzip]") {
  const std::vector<File> files = stress_files();
  for (const File& file : files) {
    // Longer than the largest piece with its overlap: the pieces' path
    // takes every decode.
    INFO(file.name << ": " << file.gzip.size() << " compressed bytes");
    REQUIRE(file.gzip.size() > (4 << 10) + (32 << 10));
  }
  std::mt19937_64 random(7);
  ChunkedGzipStats stats;
  std::size_t false_errors = 0;
  std::string first_failure;
  const std::size_t count = decodes();
  for (std::size_t i = 0; i < count; ++i) {
    const File& file = files[i % files.size()];
    const unsigned threads = 2 + static_cast<unsigned>(random() % 7);
    ChunkedGzipSettings settings = small_pieces(&stats, std::size_t{1} << (10 + random() % 3));  // 1-4 KiB
    // Overlaps longer than pieces: a piece may decode on past the next one
    // (the hand-back then lies beyond every piece cut so far).
    settings.overlap = std::size_t{8} << (10 + random() % 3);                                     // 8-32 KiB
    settings.pieces_in_flight = random() % 4;                                                    // 0: the default
    const auto serial = random() % 2 ? DecodeOptions::Gzip::isal : DecodeOptions::Gzip::zlib;
    const std::size_t read_size = 1 + random() % 100000;
    const Decoded decoded = decode_chunked(file.gzip, threads, settings, serial, read_size);
    if (decoded == Decoded{file.text, std::nullopt}) continue;
    if (false_errors++ == 0)
      first_failure = "decode " + std::to_string(i) + " of " + file.name + " on " + std::to_string(threads) +
                      " threads, pieces of " + std::to_string(settings.chunk) + " + " +
                      std::to_string(settings.overlap) + " bytes, " + std::to_string(settings.pieces_in_flight) +
                      " in flight: " + decoded.error.value_or("no error") + " after " +
                      std::to_string(decoded.bytes.size()) + " of " + std::to_string(file.text.size()) + " bytes";
  }
  INFO(count << " decodes; the first failure: " << first_failure);
  CHECK(false_errors == 0);
  // What ran: the pieces' path decoded most of the text, and the hand-back
  // to the serial decoder in the middle of a member happened too.
  CHECK(stats.members == count);
  CHECK(stats.parallel_bytes > 0);
  CHECK(stats.fallbacks > 0);
}
