#include "kernels/query_chunk.hpp"

#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include "kernels/query_kernels.cuh"
#include "metawarp/cuda/error.hpp"
#include "metawarp/cuda/grid.hpp"

namespace metawarp::kernels {

void count_hits(const QueryChunkView& chunk, const sketch::SketchParams& params,
                const DeviceIndexView& index, CubScratch& scratch, cudaStream_t stream) {
  const unsigned block = 256;
  cuda::check(cudaMemsetAsync(chunk.window_hits + chunk.windows, 0, sizeof(std::uint64_t), stream),
              "clearing the last window count");
  if (chunk.windows > 0) {
    lookup_count_kernel<<<cuda::blocks_for(chunk.windows, block), block, 0, stream>>>(
        chunk, params, index);
    cuda::check_launch("lookup_count_kernel");
  }
  place_hits(chunk, scratch, stream);
}

void place_hits(const QueryChunkView& chunk, CubScratch& scratch, cudaStream_t stream) {
  const unsigned block = 256;
  scratch.run([&](void* temp, std::size_t& bytes) {
    return cub::DeviceScan::ExclusiveSum(temp, bytes, chunk.window_hits, chunk.window_offsets,
                                         chunk.windows + 1, stream);
  }, "scanning the window hit counts");
  read_offsets_kernel<<<cuda::blocks_for(std::uint64_t(chunk.reads) + 1, block), block, 0,
                        stream>>>(chunk);
  cuda::check_launch("read_offsets_kernel");
}

void sort_each_read(const QueryChunkView& chunk, std::uint64_t total, const std::uint32_t* keys,
                    std::uint32_t* sorted, std::uint64_t* large_read_ends, CubScratch& scratch,
                    cudaStream_t stream) {
  if (chunk.reads == 0) return;
  const unsigned block = 256;
  // The long reads first: CUB may write anything outside its segments, which
  // are the short reads' places, sorted (over) by the warps after it.
  large_read_ends_kernel<<<cuda::blocks_for(chunk.reads, block), block, 0, stream>>>(
      chunk, large_read_ends);
  cuda::check_launch("large_read_ends_kernel");
  scratch.run([&](void* temp, std::size_t& bytes) {
    return cub::DeviceSegmentedSort::SortKeys(temp, bytes, keys, sorted, total, chunk.reads,
                                              chunk.read_offsets, large_read_ends, stream);
  }, "sorting the long reads' hits");
  const unsigned sort_block = 32 * sort_warps_per_block;
  sort_small_reads_kernel<<<cuda::blocks_for(std::uint64_t(chunk.reads) * 32, sort_block),
                            sort_block, 0, stream>>>(chunk, keys, sorted);
  cuda::check_launch("sort_small_reads_kernel");
}

void gather_sorted_hits(const QueryChunkView& chunk, std::uint32_t sketch_size,
                        const DeviceIndexView& index, const CandidateParams& candidates,
                        std::uint64_t total, std::uint32_t* keys,
                        std::uint32_t* sorted, std::uint64_t* large_read_ends,
                        sketch::Location* hits, CubScratch& scratch, cudaStream_t stream) {
  if (total == 0) return;
  const unsigned block = 256;
  gather_kernel<<<cuda::blocks_for(chunk.windows * 32, block), block, 0, stream>>>(
      chunk, sketch_size, index, candidates, keys);
  cuda::check_launch("gather_kernel");
  sort_each_read(chunk, total, keys, sorted, large_read_ends, scratch, stream);
  unpack_locations_kernel<<<cuda::blocks_for((total + unpack_run - 1) / unpack_run, block),
                            block, 0, stream>>>(index, sorted, total, hits);
  cuda::check_launch("unpack_locations_kernel");
}

void feature_taxa(const QueryChunkView& chunk, std::uint32_t sketch_size,
                  const DeviceIndexView& index, const classify::taxon_node_t* target_node,
                  const classify::TaxonTree& tree, classify::taxon_node_t* taxa,
                  cudaStream_t stream) {
  const std::uint64_t slots = chunk.windows * sketch_size;
  if (slots == 0) return;
  const unsigned block = 256;
  feature_taxa_kernel<<<cuda::blocks_for(slots, block), block, 0, stream>>>(
      chunk, sketch_size, index, target_node, tree, taxa);
  cuda::check_launch("feature_taxa_kernel");
}

void matched_bases(const QueryChunkView& chunk, std::uint32_t sketch_size, std::uint32_t k,
                   const DeviceIndexView& index, const CandidateParams& params,
                   const classify::Candidate* top, const std::uint32_t* top_counts,
                   std::uint32_t* sorted_positions, std::uint32_t* matched, cudaStream_t stream) {
  if (chunk.reads == 0) return;
  const unsigned block = 128;  // 4 reads, a warp each
  matched_bases_kernel<<<cuda::blocks_for(std::uint64_t(chunk.reads) * 32, block), block, 0,
                         stream>>>(
      chunk, sketch_size, k, index, params, top, top_counts, sorted_positions, matched);
  cuda::check_launch("matched_bases_kernel");
}

void score_candidates(const QueryChunkView& chunk, const sketch::Location* hits,
                      const CandidateParams& params, classify::Candidate* top,
                      std::uint32_t* top_counts, std::uint32_t* hit_counts, cudaStream_t stream) {
  if (chunk.reads == 0) return;
  const unsigned block = 128;
  top_candidates_kernel<<<cuda::blocks_for(chunk.reads, block), block, 0, stream>>>(
      chunk, hits, params, top, top_counts, hit_counts);
  cuda::check_launch("top_candidates_kernel");
}

}  // namespace metawarp::kernels
