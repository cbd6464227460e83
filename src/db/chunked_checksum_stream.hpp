#pragma once
// A section's chunked checksum (checksum.hpp, docs/database-format.md) over
// bytes that arrive in pieces of any size, e.g. a database written in parts
// (part_writer.hpp): a checksum chunk may straddle two pieces. The result
// equals chunked_checksum() of all the pieces concatenated.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace metawarp::db {

class ChunkedChecksumStream {
 public:
  // The next n bytes of the section; whole chunks are summed on up to
  // `threads` threads (0: all cores).
  void add(const void* data, std::size_t n, unsigned threads = 0);
  // The checksum of everything added (once; the stream is then spent).
  std::uint64_t finish();
  std::uint64_t bytes() const { return bytes_; }

 private:
  std::vector<char> carry_;           // the start of a chunk not yet complete
  std::vector<std::uint64_t> sums_;   // one per complete chunk, in order
  std::uint64_t bytes_ = 0;
};

}  // namespace metawarp::db
