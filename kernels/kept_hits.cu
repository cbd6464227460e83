#include "kernels/kept_hits.hpp"

#include <cub/device/device_scan.cuh>

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

// A thread per mask word (and one past the last, whose count is 0).
__global__ void mask_kept_kernel(const ListRange* kept, std::uint64_t slots, std::uint32_t* mask,
                                 std::uint64_t* word_counts) {
  const std::uint64_t words = (slots + 31) / 32;
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t w = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; w <= words;
       w += stride) {
    std::uint32_t bits = 0;
    for (std::uint64_t b = 0; w < words && b < 32 && 32 * w + b < slots; ++b)
      if (kept[32 * w + b].count != 0) bits |= 1u << b;
    if (w < words) mask[w] = bits;
    word_counts[w] = __popc(bits);
  }
}

__global__ void gather_kept_lengths_kernel(const ListRange* kept, std::uint64_t slots,
                                           const std::uint32_t* mask,
                                           const std::uint64_t* word_offsets,
                                           std::uint8_t* lengths) {
  const std::uint64_t words = (slots + 31) / 32;
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t w = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; w < words;
       w += stride) {
    std::uint64_t out = word_offsets[w];
    for (std::uint32_t bits = mask[w]; bits != 0; bits &= bits - 1)
      lengths[out++] = std::uint8_t(kept[32 * w + __ffs(bits) - 1].count);
  }
}

__global__ void mask_counts_kernel(const std::uint32_t* mask, std::uint64_t words,
                                   std::uint64_t* word_counts) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t w = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; w <= words;
       w += stride)
    word_counts[w] = w < words ? __popc(mask[w]) : 0;
}

__global__ void scatter_kept_lengths_kernel(const std::uint32_t* mask, const std::uint8_t* lengths,
                                            std::uint64_t slots,
                                            const std::uint64_t* word_offsets,
                                            std::uint8_t* slot_lengths) {
  const std::uint64_t words = (slots + 31) / 32;
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t w = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; w < words;
       w += stride) {
    std::uint64_t in = word_offsets[w];
    const std::uint32_t bits = mask[w];
    for (std::uint64_t b = 0; b < 32 && 32 * w + b < slots; ++b)
      slot_lengths[32 * w + b] = (bits >> b) & 1u ? lengths[in++] : 0;
  }
}

// The word counts' running sum (words + 1 entries: the last, the total).
void scan_word_counts(std::uint64_t* word_counts, std::uint64_t* word_offsets,
                      std::uint64_t words, CubScratch& scratch, cudaStream_t stream) {
  scratch.run([&](void* temp, std::size_t& bytes) {
    return cub::DeviceScan::ExclusiveSum(temp, bytes, word_counts, word_offsets, words + 1,
                                         stream);
  }, "scanning a kept mask's word counts");
}

// A thread per window: the window's lengths summed.
__global__ void window_lengths_kernel(const std::uint8_t* lengths, std::uint64_t windows,
                                      std::uint32_t sketch_size, std::uint64_t* sums) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t w = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; w < windows;
       w += stride) {
    std::uint64_t sum = 0;
    for (std::uint32_t j = 0; j < sketch_size; ++j) sum += lengths[w * sketch_size + j];
    sums[w] = sum;
  }
}

// A thread per window: its slots' lists follow one another from its offset.
__global__ void adopt_kept_lists_kernel(const std::uint8_t* lengths, std::uint64_t windows,
                                        std::uint32_t sketch_size, std::uint32_t segment,
                                        const std::uint64_t* sums, const std::uint64_t* offsets,
                                        ListRange* kept, std::uint64_t* kept_window_hits) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t w = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; w < windows;
       w += stride) {
    std::uint64_t out = offsets[w];
    for (std::uint32_t j = 0; j < sketch_size; ++j) {
      const std::uint64_t slot = w * sketch_size + j;
      const std::uint32_t length = lengths[slot];
      if (length == 0) continue;
      kept[slot] = ListRange{segment, std::uint32_t(out), length};
      out += length;
    }
    kept_window_hits[w] += sums[w];
  }
}

}  // namespace

void pack_kept_lengths(const ListRange* kept, std::uint64_t slots, std::uint32_t* mask,
                       std::uint8_t* lengths, std::uint64_t* word_counts,
                       std::uint64_t* word_offsets, CubScratch& scratch, cudaStream_t stream) {
  const std::uint64_t words = kept_mask_words(slots);
  const unsigned block = 256;
  mask_kept_kernel<<<cuda::blocks_for(words + 1, block), block, 0, stream>>>(kept, slots, mask,
                                                                              word_counts);
  cuda::check_launch("mask_kept_kernel");
  scan_word_counts(word_counts, word_offsets, words, scratch, stream);
  if (words == 0) return;
  gather_kept_lengths_kernel<<<cuda::blocks_for(words, block), block, 0, stream>>>(
      kept, slots, mask, word_offsets, lengths);
  cuda::check_launch("gather_kept_lengths_kernel");
}

void unpack_kept_lengths(const std::uint32_t* mask, const std::uint8_t* lengths,
                         std::uint64_t slots, std::uint8_t* slot_lengths,
                         std::uint64_t* word_counts, std::uint64_t* word_offsets,
                         CubScratch& scratch, cudaStream_t stream) {
  const std::uint64_t words = kept_mask_words(slots);
  const unsigned block = 256;
  mask_counts_kernel<<<cuda::blocks_for(words + 1, block), block, 0, stream>>>(mask, words,
                                                                                word_counts);
  cuda::check_launch("mask_counts_kernel");
  scan_word_counts(word_counts, word_offsets, words, scratch, stream);
  if (words == 0) return;
  scatter_kept_lengths_kernel<<<cuda::blocks_for(words, block), block, 0, stream>>>(
      mask, lengths, slots, word_offsets, slot_lengths);
  cuda::check_launch("scatter_kept_lengths_kernel");
}

void adopt_kept_lists(const std::uint8_t* lengths, std::uint64_t windows,
                      std::uint32_t sketch_size, std::uint32_t segment,
                      std::uint64_t* window_sums, std::uint64_t* window_offsets,
                      CubScratch& scratch, ListRange* kept, std::uint64_t* kept_window_hits,
                      cudaStream_t stream) {
  if (windows == 0) return;
  const unsigned block = 256;
  window_lengths_kernel<<<cuda::blocks_for(windows, block), block, 0, stream>>>(
      lengths, windows, sketch_size, window_sums);
  cuda::check_launch("window_lengths_kernel");
  scratch.run([&](void* temp, std::size_t& bytes) {
    return cub::DeviceScan::ExclusiveSum(temp, bytes, window_sums, window_offsets, windows,
                                         stream);
  }, "scanning the kept lists' window lengths");
  adopt_kept_lists_kernel<<<cuda::blocks_for(windows, block), block, 0, stream>>>(
      lengths, windows, sketch_size, segment, window_sums, window_offsets, kept,
      kept_window_hits);
  cuda::check_launch("adopt_kept_lists_kernel");
}

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
