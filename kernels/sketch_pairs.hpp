#pragma once
// The multi-GPU build's sketch kernel: a batch is sketched exactly as the
// fused sketch+insert kernel sketches it (sketch_batch.cuh), but its
// (feature, location) pairs are written to a buffer instead of a table, for
// the exchange that sends every pair to the shard owning its feature
// (sharded_build_table.hpp). Host-side interface (no device code).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>

#include "kernels/build_batch.hpp"
#include "kernels/build_table.hpp"
#include "metawarp/index/feature_range.hpp"
#include "metawarp/sketch/types.hpp"

namespace metawarp::kernels {

// Device memory: pairs [0, *count) of features/locations (packed target <<
// 32 | window), room for `capacity`.
struct PairBuffer {
  std::uint64_t* count;
  sketch::feature_t* features;
  std::uint64_t* locations;
  std::uint64_t capacity;
};

// The most pairs `windows` windows give: a window keeps at most s features,
// each from a k-mer starting in it (stride of them). A PairBuffer of this
// capacity never overflows.
inline std::uint64_t max_pairs_of_windows(std::uint64_t windows, const sketch::SketchParams& p) {
  return windows * std::min<std::uint64_t>(p.sketch_size, p.stride());
}

// Appends to `out` the pairs of every window of `batch` (device memory) whose
// feature lies in `range`, in no particular order, on `stream`; features
// equal to a table sentinel go to `spill` (as in BuildTable::sketch_insert).
// out.count must be set (0 for an empty buffer) before; the caller checks
// *out.count <= out.capacity afterwards (pairs beyond it are not written).
void sketch_pairs(const BatchView& batch, const sketch::SketchParams& params,
                  index::FeatureRange range, const PairBuffer& out, const SentinelSpill& spill,
                  cudaStream_t stream);

}  // namespace metawarp::kernels
