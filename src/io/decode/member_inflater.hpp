#pragma once
// One whole DEFLATE stream in memory decoded at once (the body of a BGZF
// member), for the member-parallel gzip decoder: libdeflate where metawarp
// was built with it, else zlib. It only says yes or no: a member it refuses
// goes to the serial decoder, which names the problem (decode/bgzf_source.cpp).
#include <cstddef>
#include <cstdint>
#include <memory>

namespace metawarp::io {

class MemberInflater {
 public:
  MemberInflater();
  ~MemberInflater();
  MemberInflater(MemberInflater&&) noexcept;
  MemberInflater& operator=(MemberInflater&&) noexcept;

  // True when `in` is exactly one complete DEFLATE stream that decodes to
  // exactly `out_size` bytes (written to `out`).
  bool inflate(const unsigned char* in, std::size_t in_size, char* out, std::size_t out_size);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// CRC-32 as gzip's trailer holds it.
std::uint32_t gzip_crc32(const char* data, std::size_t size);

}  // namespace metawarp::io
