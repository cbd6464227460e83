#include "db/chunked_checksum_stream.hpp"

#include <algorithm>

#include "db/checksum.hpp"
#include "db/file_format.hpp"
#include "metawarp/host/parallel_for.hpp"

namespace metawarp::db {

void ChunkedChecksumStream::add(const void* data, std::size_t n, unsigned threads) {
  constexpr std::size_t chunk = file_format::checksum_chunk_bytes;
  const auto* in = static_cast<const char*>(data);
  bytes_ += n;
  if (!carry_.empty()) {  // complete the chunk begun by the previous piece
    const std::size_t take = std::min(n, chunk - carry_.size());
    carry_.insert(carry_.end(), in, in + take);
    in += take;
    n -= take;
    if (carry_.size() < chunk) return;
    sums_.push_back(checksum64(carry_.data(), carry_.size()));
    carry_.clear();
  }
  const std::size_t whole = n / chunk;
  const std::size_t first = sums_.size();
  sums_.resize(first + whole);
  const std::size_t parts = threads == 0 ? host::parts_for(whole, 1)
                                         : std::clamp<std::size_t>(threads, 1, std::max<std::size_t>(whole, 1));
  host::parallel_ranges(whole, parts, [&](std::size_t begin, std::size_t end) {
    for (std::size_t c = begin; c < end; ++c) sums_[first + c] = checksum64(in + c * chunk, chunk);
  });
  carry_.assign(in + whole * chunk, in + n);
}

std::uint64_t ChunkedChecksumStream::finish() {
  if (!carry_.empty()) sums_.push_back(checksum64(carry_.data(), carry_.size()));
  carry_.clear();
  return combine_chunk_checksums(sums_);
}

}  // namespace metawarp::db
