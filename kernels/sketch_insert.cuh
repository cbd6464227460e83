#pragma once
// The fused build kernel: 2-bit encoding, canonical k-mers, hashing and the
// per-window sketch (sketch_batch.cuh: the shared sketch.hpp, from the
// batch's piece of the target), then insertion
// of (feature -> target, window) through the table's device API. Nothing but
// the bases goes through global memory on the way in. One GPU's build and
// every GPU of a multi-GPU build run it; on several GPUs each inserts the
// features of its own shard and hands the others' pairs to the exchange.
#include <cooperative_groups.h>

#include <cstdint>

#include "kernels/build_batch.hpp"
#include "kernels/build_table.hpp"
#include "kernels/sketch_batch.cuh"
#include "metawarp/cuda/error.hpp"
#include "metawarp/cuda/grid.hpp"
#include "metawarp/index/feature_range.hpp"
#include "metawarp/tables/sentinels.hpp"

namespace metawarp::kernels {

namespace cg = cooperative_groups;

// Compacts a window's `n` features in place: the first (the count
// returned) are the ones its table takes; the other shards' pairs are
// written to `others` with one reservation for the window, sentinels to the
// spill, features outside `kept` dropped.
__device__ inline std::uint32_t keep_own_features(const SketchTargets& to,
                                                  sketch::feature_t* features, std::uint32_t n,
                                                  std::uint64_t location) {
  using Sentinels = tables::KeySentinels<std::uint32_t>;
  std::uint32_t theirs = 0;
  for (std::uint32_t j = 0; j < n; ++j) {
    const std::uint32_t key = features[j];
    theirs += to.kept.contains(key) && !to.own.contains(key) && Sentinels::is_valid(key);
  }
  std::uint64_t at = 0;
  if (theirs > 0)
    at = atomicAdd(reinterpret_cast<unsigned long long*>(to.others.count),
                   static_cast<unsigned long long>(theirs));
  std::uint32_t mine = 0;
  for (std::uint32_t j = 0; j < n; ++j) {
    const std::uint32_t key = features[j];
    if (!to.kept.contains(key)) continue;
    if (!Sentinels::is_valid(key)) {
      spill_pair(to.spill, key, location);
    } else if (to.own.contains(key)) {
      features[mine++] = key;  // mine <= j: the feature was read before
    } else {
      if (at < to.others.capacity) {
        to.others.features[at] = key;
        to.others.locations[at] = location;
      }
      ++at;
    }
  }
  return mine;
}

// One thread sketches one window and keeps its own features; the threads of
// a tile then insert them one after another, each insert done cooperatively
// by the tile.
template <class TableRef>
__global__ void sketch_insert_kernel(BatchView batch, sketch::SketchParams params,
                                     SketchTargets to, TableRef table) {
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
    if (w < windows) {
      n = sketch_batch_window(batch, params, w, features, location);
      n = keep_own_features(to, features, n, location);
    }
    for (int r = 0; r < G; ++r) {
      const std::uint32_t count = tile.shfl(n, r);
      const std::uint64_t loc = tile.shfl(location, r);
      for (std::uint32_t j = 0; j < count; ++j)
        table.insert(tile, tile.shfl(j < n ? features[j] : 0u, r), loc);
    }
  }
}

// Queues the kernel over every window of `batch` on `stream`.
template <class TableRef>
void sketch_insert(const BatchView& batch, const sketch::SketchParams& params,
                   const SketchTargets& to, const TableRef& table, cudaStream_t stream) {
  if (batch.windows == 0) return;
  const unsigned block = 256;
  sketch_insert_kernel<<<cuda::blocks_for(batch.windows, block), block, 0, stream>>>(
      batch, params, to, table);
  cuda::check_launch("sketch_insert_kernel");
}

}  // namespace metawarp::kernels
