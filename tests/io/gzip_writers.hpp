#pragma once
// gzip files for the decoder tests, written with zlib: FASTQ-like text
// (random, genome-like, runs of short periods), one member at any level,
// strategy and memory level, and BGZF (members with the "BC" size
// field, then the empty end-of-file member).
#include <zlib.h>

#include <random>
#include <string>

#include "catch.hpp"

namespace metawarp::io::test {

inline std::string fastq_text(std::mt19937_64& random, std::size_t records) {
  std::string text;
  for (std::size_t i = 0; i < records; ++i) {
    text += "@read" + std::to_string(i) + "\n";
    for (int j = 0; j < 150; ++j) text += "ACGT"[random() % 4];
    text += "\n+\n";
    for (int j = 0; j < 150; ++j) text += static_cast<char>('!' + random() % 41);
    text += "\n";
  }
  return text;
}

// Reads drawn from one random genome, Illumina-like binned qualities: long
// matches reach back across piece boundaries (markers into the window).
inline std::string genome_like_fastq(std::mt19937_64& random, std::size_t records) {
  std::string genome(200000, 'A');
  for (char& c : genome) c = "ACGT"[random() % 4];
  std::string text;
  for (std::size_t i = 0; i < records; ++i) {
    text += "@SIM:1:FCX:1:" + std::to_string(1101 + random() % 20) + ":" + std::to_string(random() % 30000) +
            ":" + std::to_string(random() % 30000) + " 1:N:0:ACGTACGT\n";
    std::string read = genome.substr(random() % (genome.size() - 150), 150);
    if (random() % 4 == 0) read[random() % 150] = 'N';
    text += read + "\n+\n";
    for (int j = 0; j < 150; ++j) text += random() % 10 == 0 ? ',' : (random() % 7 == 0 ? ':' : 'F');
    text += "\n";
  }
  return text;
}

// Text of runs of every period from 1 to 40 (a pattern repeated for 10 to
// 409 bytes) between FASTQ-like lines: matches of every short distance,
// overlapping their own output, many of them reaching back across a piece's
// start into the window (and copied on from there), which is what the
// window copies' replay has to get right.
inline std::string periodic_text(std::mt19937_64& random, std::size_t bytes) {
  std::string text;
  while (text.size() < bytes) {
    const std::size_t period = 1 + random() % 40;
    std::string pattern(period, 'A');
    for (char& c : pattern) c = "ACGTN!#FF:,@+"[random() % 13];
    const std::size_t length = 10 + random() % 400;
    for (std::size_t i = 0; i < length; ++i) text += pattern[i % period];
    text += "\n@SIM:1:FCX:1:" + std::to_string(random() % 100000) + "\n";
  }
  return text;
}

// One gzip member (gzip wrapper), at `level`; `strategy` Z_DEFAULT_STRATEGY etc.;
// `memory_level` 1..9 (zlib's memLevel): a low one makes short blocks (a block
// ends when 2^(memory_level + 6) symbols are buffered), so small pieces of a
// small file find block starts.
inline std::string gzip_member(const std::string& data, int level, int strategy = Z_DEFAULT_STRATEGY,
                        const std::string& extra = "", int memory_level = 8) {
  z_stream stream{};
  REQUIRE(deflateInit2(&stream, level, Z_DEFLATED, 15 + 16, memory_level, strategy) == Z_OK);
  gz_header header{};
  std::string extra_copy = extra;
  if (!extra.empty()) {
    header.extra = reinterpret_cast<Bytef*>(extra_copy.data());
    header.extra_len = static_cast<uInt>(extra_copy.size());
    deflateSetHeader(&stream, &header);
  }
  std::string out(deflateBound(&stream, data.size()) + 64, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&stream, Z_FINISH) == Z_STREAM_END);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

// BGZF: members of at most `block` (<= 65280) bytes of data with the "BC" extra field
// giving each member's size, then the empty end-of-file member.
inline std::string bgzf(const std::string& data, int level = 6, std::size_t block = 65280) {
  std::string file;
  const auto add = [&](const std::string& part) {
    std::string member = gzip_member(part, level, Z_DEFAULT_STRATEGY, std::string("BC\x02\x00\x00\x00", 6));
    const std::size_t size = member.size() - 1;
    member[16] = static_cast<char>(size & 0xff);
    member[17] = static_cast<char>(size >> 8);
    file += member;
  };
  for (std::size_t at = 0; at < data.size(); at += block) add(data.substr(at, block));
  add("");
  return file;
}

}  // namespace metawarp::io::test
