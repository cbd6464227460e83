#pragma once
// ByteSources for tests and fuzzing: bytes in memory, and an input that
// never ends. Both count what they hand out, so a test can show that a
// reader gave up after a bounded prefix.
#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "io/decode/byte_source.hpp"

namespace metawarp::io::test {

// `bytes`, at most `max_read` of them per read() (odd sizes put line ends
// and gzip members across reads).
class MemorySource final : public ByteSource {
 public:
  explicit MemorySource(std::string bytes, std::size_t max_read = std::string::npos)
      : bytes_(std::move(bytes)), max_read_(std::max<std::size_t>(max_read, 1)) {}

  std::size_t read(char* destination, std::size_t capacity) override {
    const std::size_t n = std::min({capacity, max_read_, bytes_.size() - used_});
    std::memcpy(destination, bytes_.data() + used_, n);
    used_ += n;
    return n;
  }
  bool compressed() const override { return false; }
  std::uint64_t raw_bytes_read() const override { return used_; }

 private:
  std::string bytes_;
  std::size_t max_read_;
  std::size_t used_ = 0;
};

// `prefix`, then `filler` forever.
class EndlessSource final : public ByteSource {
 public:
  EndlessSource(std::string prefix, char filler) : prefix_(std::move(prefix)), filler_(filler) {}

  std::size_t read(char* destination, std::size_t capacity) override {
    const std::size_t n = prefix_.read(destination, capacity);
    std::memset(destination + n, filler_, capacity - n);
    filled_ += capacity - n;
    return capacity;
  }
  bool compressed() const override { return false; }
  std::uint64_t raw_bytes_read() const override { return prefix_.raw_bytes_read() + filled_; }

 private:
  MemorySource prefix_;
  char filler_;
  std::uint64_t filled_ = 0;
};

}  // namespace metawarp::io::test
