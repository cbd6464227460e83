#pragma once
// ByteSources for tests and fuzzing: bytes in memory, and an input that
// never ends. Both count what they hand out, so a test can show that a
// reader gave up after a bounded prefix.
#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "io/byte_source.hpp"

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
    std::size_t n = 0;
    if (handed_out_ < prefix_.size()) {
      n = std::min(capacity, prefix_.size() - static_cast<std::size_t>(handed_out_));
      std::memcpy(destination, prefix_.data() + handed_out_, n);
    }
    std::memset(destination + n, filler_, capacity - n);
    handed_out_ += capacity;
    return capacity;
  }
  bool compressed() const override { return false; }
  std::uint64_t raw_bytes_read() const override { return handed_out_; }

 private:
  std::string prefix_;
  char filler_;
  std::uint64_t handed_out_ = 0;
};

}  // namespace metawarp::io::test
