#pragma once
// A ByteSource read ahead of the cutter (record_blocks.hpp), one large read
// at a time on a thread of its own (background_read.hpp), into a buffer that
// becomes the next block whole: the cutter starts the read of block N+1's
// bytes before it finds the records of block N, so the copy out of the page
// cache and the record scan overlap instead of taking turns
// (docs/architecture.md, "Cutting reads").
//
// The bytes read ahead follow, in the stream, the carry of the block before
// (its last, partial record), which is known only once that block is cut:
// they are read after room left in front (ByteBuffer's front room), where
// the carry is put once known, so neither is moved to join them.
//
// The bytes come out in the source's order, and what a read threw is thrown
// once the bytes before it have been taken, as by a read at that point.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string_view>

#include "io/cut/background_read.hpp"
#include "io/decode/byte_buffer.hpp"
#include "io/decode/byte_source.hpp"

namespace metawarp::io {

class BlockReadAhead {
 public:
  // Reads `source`, which the caller keeps alive and reads only through this.
  explicit BlockReadAhead(ByteSource& source) : source_(source), background_(source) {}

  // Nothing held, no read in flight, and the input neither ended nor failed
  // there: start() may begin the next read.
  bool idle() const { return !background_.in_flight() && held_.empty() && !error_ && !ended_; }
  // Starts one read() of up to `bytes` on the thread, `front_room` bytes
  // into the held buffer (room for a carry), which has room for `capacity`
  // bytes after it (the block it becomes need not grow); only when idle().
  void start(std::size_t bytes, std::size_t front_room, std::size_t capacity);

  // Moves everything held (waiting for the read in flight) into `block`,
  // which must be empty, after `carry`: the buffers are swapped, so `block`'s
  // becomes the next read's. False, and nothing done, when nothing is held.
  bool take(ByteBuffer& block, std::string_view carry);
  // Up to `capacity` bytes: those held first (waiting for the read in
  // flight), else read from the source now; 0 at the end of the input.
  // Throws what the source threw once the bytes before it are taken.
  std::size_t read(char* destination, std::size_t capacity);

  // The source's count, but for a read in flight.
  std::uint64_t raw_bytes_read() const {
    return background_.in_flight() ? raw_bytes_before_read_ : source_.raw_bytes_read();
  }

 private:
  // Waits for the read in flight, if any: its bytes are then held.
  void collect();

  ByteSource& source_;
  ByteBuffer held_;        // read, not taken yet; being read into while in flight
  std::exception_ptr error_;  // what the last read threw: after held_'s bytes
  bool ended_ = false;        // the last read returned nothing: the input ended
  std::uint64_t raw_bytes_before_read_ = 0;
  BackgroundRead background_;  // last: a read in flight ends before held_ goes
};

}  // namespace metawarp::io
