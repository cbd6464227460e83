// Every gzip decoder gives zlib's bytes and zlib's error after the same
// bytes, on every shape of gzip file: levels 1-9, stored blocks, several
// members, BGZF, empty members, zero padding, trailing data, truncation at
// many offsets, corrupt bytes. bzip2 and zstd follow the same rules.
#include <bzlib.h>
#include <zstd.h>
#include <zlib.h>

#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "catch.hpp"
#include "test_effort.hpp"
#include "io/decode/byte_format.hpp"
#include "io/decode/byte_source.hpp"
#include "gzip_writers.hpp"
#include "test_sources.hpp"

using namespace metawarp::io;
using namespace metawarp::io::test;

namespace {

struct Decoded {
  std::string bytes;  // before the error, if any
  std::optional<std::string> error;
  bool operator==(const Decoded&) const = default;
};

Decoded decode(const std::string& file, const DecodeOptions& options, std::size_t read_size = 65536,
               std::size_t source_read = std::string::npos) {
  Decoded out;
  try {
    auto source = detect_compression(std::make_unique<MemorySource>(file, source_read), options);
    std::string buffer(read_size, '\0');
    while (true) {
      const std::size_t n = source->read(buffer.data(), buffer.size());
      if (n == 0) break;
      out.bytes.append(buffer.data(), n);
    }
  } catch (const SourceError& error) {
    out.error = error.what();
  }
  return out;
}

DecodeOptions with(DecodeOptions::Gzip gzip, unsigned threads = 1, bool read_ahead = false) {
  DecodeOptions options;
  options.gzip = gzip;
  options.threads = threads;
  options.read_ahead = read_ahead;
  return options;
}

// Every decoder configuration; the first is the reference.
std::vector<DecodeOptions> all_decoders() {
  using G = DecodeOptions::Gzip;
  return {with(G::zlib), with(G::isal), with(G::isal, 1, true), with(G::isal, 3), with(G::zlib, 2, true)};
}

void check_all_agree(const std::string& file) {
  const auto decoders = all_decoders();
  const Decoded reference = decode(file, decoders[0]);
  for (std::size_t i = 1; i < decoders.size(); ++i) {
    const Decoded other = decode(file, decoders[i], 1 + i * 7919);
    INFO("decoder " << i << ": reference error " << reference.error.value_or("none") << " after "
                    << reference.bytes.size() << " bytes; this one "
                    << other.error.value_or("none") << " after " << other.bytes.size());
    CHECK(other == reference);
  }
}

}  // namespace

TEST_CASE("gzip decoders agree with zlib on valid files of every level and layout") {
  std::mt19937_64 random(1);
  const std::string text = fastq_text(random, 3000);  // about 1 MB
  for (int level = 1; level <= 9; ++level) {
    const std::string file = gzip_member(text, level);
    check_all_agree(file);
    CHECK(decode(file, with(DecodeOptions::Gzip::isal)).bytes == text);
  }
  check_all_agree(gzip_member(text, 0));                      // stored blocks
  check_all_agree(gzip_member(text, 6, Z_HUFFMAN_ONLY));      // no matches
  check_all_agree(gzip_member(text, 6, Z_FIXED));             // fixed codes
  check_all_agree(gzip_member(text, 6, Z_RLE));
  check_all_agree(gzip_member("", 6));                        // an empty member alone
  check_all_agree(gzip_member(text, 1) + gzip_member("", 9) + gzip_member(text.substr(5), 9));
  check_all_agree(bgzf(text));
  CHECK(decode(bgzf(text), with(DecodeOptions::Gzip::isal, 3)).bytes == text);
  check_all_agree(gzip_member(text, 6) + std::string(1000, '\0'));  // zero padding
  check_all_agree(gzip_member(text, 6, Z_DEFAULT_STRATEGY, "some extra field"));
}

TEST_CASE("gzip decoders give zlib's error after zlib's bytes on broken files") {
  std::mt19937_64 random(2);
  const std::string text = fastq_text(random, 600);
  const std::vector<std::string> files = {gzip_member(text, 6), gzip_member(text, 0) + gzip_member(text, 1),
                                          bgzf(text + text)};
  for (const std::string& file : files) {
    check_all_agree(file + "garbage");             // trailing data
    check_all_agree(file + std::string(10, '\0') + "x");  // padding, then data
    check_all_agree(file + "\x1f");                // half a magic number
    // Truncated at many offsets, header and trailer included.
    for (std::size_t cut = 0; cut < file.size(); cut += metawarp::test::effort_divisor + cut / 8) check_all_agree(file.substr(0, cut));
    for (std::size_t cut = file.size() - 12; cut < file.size(); ++cut) check_all_agree(file.substr(0, cut));
    // Corrupt bytes anywhere.
    for (int trial = 0; trial < metawarp::test::rounds(80); ++trial) {
      std::string broken = file;
      const std::size_t at = random() % broken.size();
      broken[at] = static_cast<char>(broken[at] ^ (1 + random() % 255));
      check_all_agree(broken);
    }
  }
}

TEST_CASE("bzip2 and zstd are detected from content, several streams, with the same error rules") {
  std::mt19937_64 random(3);
  const std::string text = fastq_text(random, 500);
  std::string bz(text.size() + 10000, '\0');
  unsigned bz_size = static_cast<unsigned>(bz.size());
  REQUIRE(BZ2_bzBuffToBuffCompress(bz.data(), &bz_size, const_cast<char*>(text.data()),
                                   static_cast<unsigned>(text.size()), 9, 0, 0) == BZ_OK);
  bz.resize(bz_size);
  const DecodeOptions plain;
  CHECK(decode(bz, plain) == Decoded{text, std::nullopt});
  CHECK(decode(bz + bz, plain, 777, 1000) == Decoded{text + text, std::nullopt});
  CHECK(decode(bz + std::string(5, '\0'), plain).bytes == text);
  const Decoded trailing = decode(bz + "xyz", plain);
  CHECK(trailing.bytes == text);
  CHECK(trailing.error == "unexpected data after the end of the bzip2 stream (at compressed byte " +
                              std::to_string(bz.size()) + ")");
  for (std::size_t cut = 4; cut < bz.size(); cut += 997) {
    const Decoded cut_short = decode(bz.substr(0, cut), plain);
    CHECK(cut_short.error == "truncated bzip2 stream (unexpected end of file)");
    CHECK(text.compare(0, cut_short.bytes.size(), cut_short.bytes) == 0);
  }
  std::string broken = bz;
  broken[bz.size() / 2] ^= 0x55;
  const Decoded corrupt = decode(broken, plain);
  REQUIRE(corrupt.error);
  CHECK(corrupt.error->rfind("corrupt bzip2 stream: ", 0) == 0);
}

TEST_CASE("zstd frames, skippable frames, padding, trailing data and truncation") {
  std::mt19937_64 random(4);
  const std::string text = fastq_text(random, 500);
  std::string frame(ZSTD_compressBound(text.size()), '\0');
  frame.resize(ZSTD_compress(frame.data(), frame.size(), text.data(), text.size(), 3));
  REQUIRE(!ZSTD_isError(frame.size()));
  const std::string skippable = std::string("\x50\x2a\x4d\x18\x03\x00\x00\x00", 8) + "abc";
  const DecodeOptions plain;
  CHECK(decode(frame, plain) == Decoded{text, std::nullopt});
  CHECK(decode(frame + skippable + frame + std::string(3, '\0'), plain, 333, 777) ==
        Decoded{text + text, std::nullopt});
  const Decoded trailing = decode(frame + "xyz!", plain);
  CHECK(trailing.bytes == text);
  CHECK(trailing.error == "unexpected data after the end of the zstd stream (at compressed byte " +
                              std::to_string(frame.size()) + ")");
  for (std::size_t cut = 4; cut < frame.size(); cut += 499) {
    const Decoded cut_short = decode(frame.substr(0, cut), plain);
    CHECK(cut_short.error == "truncated zstd stream (unexpected end of file)");
    CHECK(text.compare(0, cut_short.bytes.size(), cut_short.bytes) == 0);
  }
}

namespace {

// The member-parallel decoder (threads > 1 on BGZF), with both serial
// decoders behind it and with and without read-ahead, against zlib alone.
void check_parallel_agrees(const std::string& file) {
  using G = DecodeOptions::Gzip;
  const Decoded reference = decode(file, with(G::zlib));
  std::size_t trial = 0;
  for (const unsigned threads : {2u, 3u, 8u}) {
    for (const DecodeOptions& options : {with(G::zlib, threads), with(G::isal, threads, true)}) {
      ++trial;
      const Decoded other = decode(file, options, 1 + trial * 7919, trial % 2 ? 4093 : std::string::npos);
      INFO(threads << " threads: reference error " << reference.error.value_or("none") << " after "
                   << reference.bytes.size() << " bytes; this one " << other.error.value_or("none")
                   << " after " << other.bytes.size());
      CHECK(other == reference);
    }
  }
}

// `file` without its last member (BGZF's empty end-of-file member, 28 bytes).
std::string without_eof(const std::string& file) { return file.substr(0, file.size() - 28); }

}  // namespace

TEST_CASE("BGZF decoded on 1, 2, 3 and 8 threads gives zlib's bytes") {
  std::mt19937_64 random(4);
  const std::string text = fastq_text(random, 4000);  // about 1.3 MB
  for (const int level : {1, 6, 9}) {
    const std::string file = bgzf(text, level, 4000 + 1000 * level);  // hundreds of members
    for (const unsigned threads : {1u, 2u, 3u, 8u})
      for (const auto gzip : {DecodeOptions::Gzip::zlib, DecodeOptions::Gzip::isal})
        for (const bool read_ahead : {false, true}) {
          INFO("level " << level << ", " << threads << " threads, read-ahead " << read_ahead);
          const Decoded decoded = decode(file, with(gzip, threads, read_ahead), 1000 + threads * 333);
          CHECK(!decoded.error);
          CHECK(decoded.bytes == text);
        }
  }
  // The BGZF end-of-file member alone, and a file of empty members.
  check_parallel_agrees(bgzf(""));
  check_parallel_agrees(bgzf("") + bgzf("") + bgzf(""));
}

TEST_CASE("BGZF decoded on several threads gives zlib's error after zlib's bytes") {
  std::mt19937_64 random(5);
  const std::string text = fastq_text(random, 800);
  const std::string file = bgzf(text, 6, 3000);  // about 80 members
  SECTION("truncated at many offsets") {
    for (std::size_t cut = 0; cut < file.size(); cut += metawarp::test::effort_divisor + cut / 16) check_parallel_agrees(file.substr(0, cut));
    for (std::size_t cut = file.size() - 40; cut < file.size(); ++cut) check_parallel_agrees(file.substr(0, cut));
  }
  SECTION("a corrupt byte in a middle member") {
    for (int trial = 0; trial < metawarp::test::rounds(60); ++trial) {
      std::string broken = file;
      const std::size_t at = file.size() / 4 + random() % (file.size() / 2);
      broken[at] = static_cast<char>(broken[at] ^ (1 + random() % 255));
      check_parallel_agrees(broken);
    }
  }
  SECTION("trailing garbage, zero padding, and data after padding") {
    check_parallel_agrees(file + "garbage");
    check_parallel_agrees(without_eof(file) + "garbage");
    check_parallel_agrees(file + std::string(5000, '\0'));
    check_parallel_agrees(file + std::string(10, '\0') + "x");
    check_parallel_agrees(file + "\x1f");
  }
  SECTION("a member without the BGZF field, or with a wrong size, in the middle") {
    const std::string half = text.substr(0, text.size() / 2), rest = text.substr(text.size() / 2);
    check_parallel_agrees(without_eof(bgzf(half, 6, 3000)) + gzip_member(rest, 6) + bgzf(rest, 6, 3000));
    check_parallel_agrees(without_eof(bgzf(half, 6, 3000)) + gzip_member(rest, 6));
    // The BC size of the 10th member one too large and one too small.
    for (const int delta : {1, -1}) {
      std::string changed = file;
      std::size_t at = 0;
      for (int member = 0; member < 10; ++member) at += (unsigned char)changed[at + 16] + 256u * (unsigned char)changed[at + 17] + 1;
      const std::size_t size = (unsigned char)changed[at + 16] + 256u * (unsigned char)changed[at + 17] + delta;
      changed[at + 16] = static_cast<char>(size & 0xff);
      changed[at + 17] = static_cast<char>(size >> 8);
      check_parallel_agrees(changed);
    }
  }
  SECTION("empty members among the others") {
    const std::string half = text.substr(0, text.size() / 3), rest = text.substr(text.size() / 3);
    check_parallel_agrees(bgzf(half, 6, 3000) + bgzf("") + bgzf(rest, 1, 2000) + bgzf(""));
    check_parallel_agrees(without_eof(bgzf(half, 6, 3000)) + bgzf("") + "garbage");
  }
}

TEST_CASE("detect_format knows each format by its first bytes, and by nothing less", "[io][decoders]") {
  using namespace std::string_view_literals;
  CHECK(detect_format("\x1f\x8b\x08\x00"sv) == ByteFormat::gzip);
  CHECK(detect_format("\x1f\x8b"sv) == ByteFormat::gzip);
  CHECK(detect_format("\x1f"sv) == ByteFormat::plain);
  CHECK(detect_format("BZh9"sv) == ByteFormat::bzip2);
  CHECK(detect_format("BZh1"sv) == ByteFormat::bzip2);
  CHECK(detect_format("BZh0"sv) == ByteFormat::plain);  // no block size 0
  CHECK(detect_format("BZh"sv) == ByteFormat::plain);
  CHECK(detect_format("\x28\xb5\x2f\xfd"sv) == ByteFormat::zstd);
  CHECK(detect_format("\x28\xb5\x2f"sv) == ByteFormat::plain);
  CHECK(detect_format("@r1\n"sv) == ByteFormat::plain);
  CHECK(detect_format(""sv) == ByteFormat::plain);
}
