#pragma once
// Little-endian byte buffers for the database's header and variable-size
// sections (targets, taxonomy). The big arrays bypass these entirely.
#include <bit>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace metawarp::db {

static_assert(std::endian::native == std::endian::little,
              "the database format stores arrays in little-endian byte order");

class ByteWriter {
 public:
  void u8(std::uint8_t v) { bytes_.push_back(char(v)); }
  void u32(std::uint32_t v) { raw(&v, 4); }
  void u64(std::uint64_t v) { raw(&v, 8); }
  void string(std::string_view s) {
    if (s.size() > 0xffffffffu) throw std::runtime_error("string too long for the database");
    u32(std::uint32_t(s.size()));
    raw(s.data(), s.size());
  }
  void raw(const void* p, std::size_t n) {
    const auto* c = static_cast<const char*>(p);
    bytes_.insert(bytes_.end(), c, c + n);
  }
  std::vector<char>& bytes() { return bytes_; }

 private:
  std::vector<char> bytes_;
};

// Bounds-checked reader; `what` names the section in error messages.
class ByteReader {
 public:
  ByteReader(const char* data, std::size_t size, std::string what)
      : data_(data), size_(size), what_(std::move(what)) {}

  std::uint8_t u8() { return std::uint8_t(*take(1)); }
  std::uint32_t u32() {
    std::uint32_t v;
    std::memcpy(&v, take(4), 4);
    return v;
  }
  std::uint64_t u64() {
    std::uint64_t v;
    std::memcpy(&v, take(8), 8);
    return v;
  }
  std::string string() {
    const std::uint32_t n = u32();
    const char* p = take(n);
    return std::string(p, n);
  }
  std::size_t remaining() const { return size_ - pos_; }

 private:
  const char* take(std::size_t n) {
    if (n > size_ - pos_)
      throw std::runtime_error(what_ + ": record runs past the end of the section");
    const char* p = data_ + pos_;
    pos_ += n;
    return p;
  }
  const char* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
  std::string what_;
};

}  // namespace metawarp::db
