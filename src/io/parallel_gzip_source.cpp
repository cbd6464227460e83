// Member-parallel gzip decoding: not built yet; the serial decoders.
#include "io/decoders.hpp"

namespace metawarp::io {

std::unique_ptr<ByteSource> make_parallel_gzip_source(CompressedInput input, unsigned,
                                                      DecodeOptions::Gzip serial_decoder) {
  if (serial_decoder != DecodeOptions::Gzip::zlib && isal_available())
    return make_isal_gzip_source(std::move(input));
  return make_zlib_gzip_source(std::move(input));
}

}  // namespace metawarp::io
