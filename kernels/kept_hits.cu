#include "kernels/kept_hits.hpp"

#include "metawarp/cuda/error.hpp"
#include "metawarp/cuda/grid.hpp"

namespace metawarp::kernels {
namespace {

// A warp per window, as gather_kernel: the window's lists go to consecutive
// places from its offset, read by consecutive lanes.
__global__ void keep_part_lists_kernel(QueryChunkView chunk, std::uint32_t sketch_size,
                                       DeviceIndexView part, std::uint32_t segment,
                                       std::uint32_t* segment_keys, ListRange* kept,
                                       std::uint64_t* kept_window_hits) {
  constexpr unsigned warp = 32;
  const unsigned lane = threadIdx.x % warp;
  const std::uint64_t warps = std::uint64_t(gridDim.x) * blockDim.x / warp;
  for (std::uint64_t w = (std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / warp;
       w < chunk.windows; w += warps) {
    std::uint64_t out = chunk.window_offsets[w];
    for (std::uint32_t j = 0; j < sketch_size; ++j) {
      const std::uint64_t slot = w * sketch_size + j;
      const ListRange range = chunk.ranges[slot];
      if (range.count == 0) continue;
      const std::uint32_t* list = part.shards[range.shard].locations + range.begin;
      for (std::uint32_t i = lane; i < range.count; i += warp) segment_keys[out + i] = list[i];
      if (lane == 0) kept[slot] = ListRange{segment, std::uint32_t(out), range.count};
      out += range.count;
    }
    if (lane == 0) kept_window_hits[w] += chunk.window_hits[w];
  }
}

}  // namespace

void keep_part_lists(const QueryChunkView& chunk, std::uint32_t sketch_size,
                     const DeviceIndexView& part, std::uint32_t segment,
                     std::uint32_t* segment_keys, ListRange* kept,
                     std::uint64_t* kept_window_hits, cudaStream_t stream) {
  if (chunk.windows == 0) return;
  const unsigned block = 256;
  keep_part_lists_kernel<<<cuda::blocks_for(chunk.windows * 32, block), block, 0, stream>>>(
      chunk, sketch_size, part, segment, segment_keys, kept, kept_window_hits);
  cuda::check_launch("keep_part_lists_kernel");
}

}  // namespace metawarp::kernels
