// The GPU query's sort of each read's hits (kernels::sort_each_read): a warp
// per read in shared memory up to small_read_hits keys, CUB beyond, both in
// one chunk. Every read's range must come out as std::sort leaves it, for
// reads of every size around the two paths' boundary and the warp's.
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "catch.hpp"
#include "kernels/query_chunk.hpp"
#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/cuda/stream.hpp"

using namespace metawarp;

TEST_CASE("sort_each_read sorts every read's keys, short and long reads in one chunk") {
  const std::uint32_t limit = kernels::small_read_hits;
  std::vector<std::uint64_t> sizes = {0, 1, 2, 3, 31, 32, 33, 64, 255, 294, 511, 512, 513,
                                      limit - 1, limit, limit + 1, 2 * limit, 5000, 0, 17};
  std::mt19937_64 random(20261124);
  for (int i = 0; i < 2000; ++i) sizes.push_back(random() % (i % 50 == 0 ? 4 * limit : 400));
  std::vector<std::uint64_t> offsets{0};
  for (const std::uint64_t n : sizes) offsets.push_back(offsets.back() + n);
  const std::uint64_t total = offsets.back();
  std::vector<std::uint32_t> keys(total);
  for (std::size_t r = 0; r < sizes.size(); ++r)
    for (std::uint64_t i = offsets[r]; i < offsets[r + 1]; ++i)
      // Few distinct values in some reads (ties), the full range in others.
      keys[i] = r % 3 == 0 ? std::uint32_t(random() % 7) : std::uint32_t(random());
  keys[total - 1] = 0xffffffffu;  // the padding's value, as a real key

  cuda::stream stream;
  cuda::device_buffer<std::uint64_t> d_offsets(offsets.size()), ends(sizes.size());
  cuda::device_buffer<std::uint32_t> d_keys(total), d_sorted(total);
  d_offsets.copy_from_host(offsets.data(), offsets.size(), stream);
  d_keys.copy_from_host(keys.data(), total, stream);
  d_sorted.fill_bytes(0x5a, stream);  // what CUB or the warps leave unwritten shows
  kernels::QueryChunkView chunk{};
  chunk.reads = std::uint32_t(sizes.size());
  chunk.read_offsets = d_offsets.data();
  kernels::CubScratch scratch;
  kernels::sort_each_read(chunk, total, d_keys.data(), d_sorted.data(), ends.data(), scratch,
                          stream);
  std::vector<std::uint32_t> sorted(total);
  d_sorted.copy_to_host(sorted.data(), total, stream);
  stream.synchronize();

  std::vector<std::uint32_t> expected = keys;
  for (std::size_t r = 0; r < sizes.size(); ++r)
    std::sort(expected.begin() + std::ptrdiff_t(offsets[r]),
              expected.begin() + std::ptrdiff_t(offsets[r + 1]));
  std::size_t wrong_reads = 0;
  for (std::size_t r = 0; r < sizes.size(); ++r)
    if (!std::equal(expected.begin() + std::ptrdiff_t(offsets[r]),
                    expected.begin() + std::ptrdiff_t(offsets[r + 1]),
                    sorted.begin() + std::ptrdiff_t(offsets[r]))) {
      UNSCOPED_INFO("read " << r << " of " << sizes[r] << " keys");
      ++wrong_reads;
    }
  CHECK(wrong_reads == 0);
}
