#include "kernels/sketch_pairs.hpp"

#include "kernels/sketch_batch.cuh"
#include "metawarp/cuda/error.hpp"
#include "metawarp/cuda/grid.hpp"
#include "metawarp/tables/sentinels.hpp"

namespace metawarp::kernels {
namespace {

// One thread per window: its kept features are compacted in place, then
// written with one atomic reservation for all of them.
__global__ void sketch_pairs_kernel(BatchView batch, sketch::SketchParams params,
                                    index::FeatureRange range, PairBuffer out,
                                    SentinelSpill spill) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t w = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; w < batch.windows;
       w += stride) {
    sketch::feature_t features[sketch::max_sketch_size];
    std::uint64_t location = 0;
    const std::uint32_t n = sketch_batch_window(batch, params, w, features, location);
    std::uint32_t kept = 0;
    for (std::uint32_t j = 0; j < n; ++j) {
      const std::uint32_t key = features[j];
      if (!range.contains(key)) continue;
      if (tables::KeySentinels<std::uint32_t>::is_valid(key))
        features[kept++] = key;
      else
        spill_pair(spill, key, location);
    }
    if (kept == 0) continue;
    const std::uint64_t at = atomicAdd(reinterpret_cast<unsigned long long*>(out.count),
                                       static_cast<unsigned long long>(kept));
    for (std::uint32_t j = 0; j < kept && at + j < out.capacity; ++j) {
      out.features[at + j] = features[j];
      out.locations[at + j] = location;
    }
  }
}

}  // namespace

void sketch_pairs(const BatchView& batch, const sketch::SketchParams& params,
                  index::FeatureRange range, const PairBuffer& out, const SentinelSpill& spill,
                  cudaStream_t stream) {
  if (batch.windows == 0) return;
  const unsigned block = 256;
  sketch_pairs_kernel<<<cuda::blocks_for(batch.windows, block), block, 0, stream>>>(
      batch, params, range, out, spill);
  cuda::check_launch("sketch_pairs_kernel");
}

}  // namespace metawarp::kernels
