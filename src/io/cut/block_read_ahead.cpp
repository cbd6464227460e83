#include "io/cut/block_read_ahead.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace metawarp::io {

void BlockReadAhead::start(std::size_t bytes, std::size_t front_room, std::size_t capacity) {
  if (!idle()) throw std::logic_error("BlockReadAhead::start: bytes held or a read in flight");
  // Reserved before the read: its memory must not move under it.
  held_.clear_with_front_room(front_room, std::max(bytes, capacity));
  raw_bytes_before_read_ = source_.raw_bytes_read();
  background_.start(held_.data(), bytes);
}

void BlockReadAhead::collect() {
  if (!background_.in_flight()) return;
  std::size_t got = 0;
  try {
    got = background_.collect();
  } catch (...) {
    error_ = std::current_exception();
  }
  held_.resize(got);
  if (got == 0 && !error_) ended_ = true;
}

bool BlockReadAhead::take(ByteBuffer& block, std::string_view carry) {
  collect();
  if (held_.empty()) return false;
  held_.prepend(carry.data(), carry.size());
  std::swap(block, held_);
  held_.clear();
  return true;
}

std::size_t BlockReadAhead::read(char* destination, std::size_t capacity) {
  collect();
  if (!held_.empty()) {
    const std::size_t n = std::min(capacity, held_.size());
    std::memcpy(destination, held_.data(), n);
    held_.drop_front(n);
    return n;
  }
  // Thrown once; a caller that reads on after it (not a read error) reads
  // the source again, as it would have without reading ahead.
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  if (ended_) return 0;
  return source_.read(destination, capacity);
}

}  // namespace metawarp::io
