#pragma once
// The fused build kernel: 2-bit encoding, canonical k-mers, hashing and the
// per-window sketch (sketch_batch.cuh: the shared sketch.hpp, from the
// batch's piece of the target), then insertion
// of (feature -> target, window) through the table's device API. Nothing but
// the bases goes through global memory on the way in.
#include <cooperative_groups.h>

#include <cstdint>

#include "kernels/build_batch.hpp"
#include "kernels/build_table.hpp"
#include "kernels/sketch_batch.cuh"
#include "metawarp/index/feature_range.hpp"
#include "metawarp/tables/sentinels.hpp"

namespace metawarp::kernels {

namespace cg = cooperative_groups;

// One thread sketches one window; the threads of a tile then insert their
// sketches one after another, each insert done cooperatively by the tile.
// Only the features inside `range` are kept (a shard's or a partition's
// part of the database; FeatureRange::contains, the rule the CPU applies too).
template <class TableRef>
__global__ void sketch_insert_kernel(BatchView batch, sketch::SketchParams params,
                                     index::FeatureRange range, TableRef table,
                                     SentinelSpill spill) {
  constexpr int G = TableRef::group_size;
  const auto tile = cg::tiled_partition<G>(cg::this_thread_block());
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  // Every thread of a tile runs the same number of iterations: the tile's
  // collective inserts need all its lanes.
  const std::uint64_t windows = batch.windows;
  const std::uint64_t rounded = (windows + stride - 1) / stride * stride;
  for (std::uint64_t w = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; w < rounded;
       w += stride) {
    sketch::feature_t features[sketch::max_sketch_size];
    std::uint32_t n = 0;
    std::uint64_t location = 0;
    if (w < windows) n = sketch_batch_window(batch, params, w, features, location);
    for (int r = 0; r < G; ++r) {
      const std::uint32_t count = tile.shfl(n, r);
      const std::uint64_t loc = tile.shfl(location, r);
      for (std::uint32_t j = 0; j < count; ++j) {
        const std::uint32_t key = tile.shfl(j < n ? features[j] : 0u, r);
        if (!range.contains(key)) continue;  // the same key on every lane: the tile agrees
        if (tables::KeySentinels<std::uint32_t>::is_valid(key)) {
          table.insert(tile, key, loc);
        } else if (tile.thread_rank() == 0) {
          spill_pair(spill, key, loc);
        }
      }
    }
  }
}

}  // namespace metawarp::kernels
