#include "io/decode/member_inflater.hpp"

#include <zlib.h>

#include <algorithm>
#include <climits>
#include <new>
#include <stdexcept>

#ifdef METAWARP_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

namespace metawarp::io {

#ifdef METAWARP_HAVE_LIBDEFLATE

struct MemberInflater::State {
  State() : decompressor(libdeflate_alloc_decompressor()) {
    if (decompressor == nullptr) throw std::bad_alloc();
  }
  ~State() { libdeflate_free_decompressor(decompressor); }
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  libdeflate_decompressor* decompressor;
};

bool MemberInflater::inflate(const unsigned char* in, std::size_t in_size, char* out,
                             std::size_t out_size) {
  char none = 0;  // libdeflate wants somewhere to write even when nothing comes
  std::size_t read = 0, written = 0;
  const auto result = libdeflate_deflate_decompress_ex(state_->decompressor, in, in_size,
                                                       out_size > 0 ? out : &none, out_size, &read,
                                                       &written);
  return result == LIBDEFLATE_SUCCESS && read == in_size && written == out_size;
}

std::uint32_t gzip_crc32(const char* data, std::size_t size) { return libdeflate_crc32(0, data, size); }

#else  // zlib's raw inflate

struct MemberInflater::State {
  State() {
    if (inflateInit2(&stream, -15) != Z_OK) throw std::runtime_error("cannot initialise zlib");
  }
  ~State() { inflateEnd(&stream); }
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  z_stream stream{};
};

bool MemberInflater::inflate(const unsigned char* in, std::size_t in_size, char* out,
                             std::size_t out_size) {
  if (in_size > UINT_MAX || out_size > UINT_MAX) return false;
  z_stream& stream = state_->stream;
  if (inflateReset(&stream) != Z_OK) return false;
  char none = 0;
  stream.next_in = const_cast<Bytef*>(in);
  stream.avail_in = static_cast<uInt>(in_size);
  stream.next_out = reinterpret_cast<Bytef*>(out_size > 0 ? out : &none);
  stream.avail_out = static_cast<uInt>(out_size);
  return ::inflate(&stream, Z_FINISH) == Z_STREAM_END && stream.avail_in == 0 && stream.avail_out == 0;
}

std::uint32_t gzip_crc32(const char* data, std::size_t size) {
  uLong crc = crc32(0, nullptr, 0);
  while (size > 0) {
    const uInt n = static_cast<uInt>(std::min<std::size_t>(size, UINT_MAX));
    crc = crc32(crc, reinterpret_cast<const Bytef*>(data), n);
    data += n;
    size -= n;
  }
  return static_cast<std::uint32_t>(crc);
}

#endif

MemberInflater::MemberInflater() : state_(std::make_unique<State>()) {}
MemberInflater::~MemberInflater() = default;
MemberInflater::MemberInflater(MemberInflater&&) noexcept = default;
MemberInflater& MemberInflater::operator=(MemberInflater&&) noexcept = default;

}  // namespace metawarp::io
