#pragma once
// What the cutter's tests share: FASTQ text to cut, a file opened for the
// parallel source, and the comparison of two cut blocks (bytes, counts and
// errors, everything a block says).
#include <fcntl.h>

#include <random>
#include <string>

#include "catch.hpp"
#include "io/cut/record_blocks.hpp"
#include "io_test_support.hpp"

namespace metawarp::io::test {

inline int open_read(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  return fd;
}

// About `bytes` of FASTQ reads with blank lines and CRLF here and there.
inline std::string reads_text(std::mt19937_64& random, std::size_t bytes) {
  std::string text;
  for (std::size_t i = 0; text.size() < bytes; ++i) {
    if (random() % 500 == 0) text += random() % 2 ? "\n" : "\r\n";
    const std::size_t length = random() % 300;
    // Appended piece by piece: GCC 12 reports a false -Wrestrict for "@" + std::string.
    text.append("@").append(numbered("read", i)).append(" x\n");
    text.append(random_bases(random, length)).append("\n+\n");
    text.append(random_quality(random, length)).append(random() % 7 == 0 ? "\r\n" : "\n");
  }
  return text;
}

inline bool same_blocks(const RecordBlock& a, const RecordBlock& b) {
  return a.display_name == b.display_name && a.format == b.format &&
         a.first_record == b.first_record && a.first_line == b.first_line &&
         a.records == b.records && a.bytes.view() == b.bytes.view() &&
         a.cut_inside_line == b.cut_inside_line &&
         a.read_error.has_value() == b.read_error.has_value() &&
         (!a.read_error || std::string(a.read_error->what()) == b.read_error->what());
}

}  // namespace metawarp::io::test
