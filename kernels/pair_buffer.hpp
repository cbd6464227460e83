#pragma once
// The multi-GPU build's pairs bound for other shards: its fused kernel
// (sketch_insert.cuh) inserts the features of the GPU's own shard in place
// and writes the others' (feature, location) pairs here, for the exchange
// that sends every pair to the shard owning its feature
// (sharded_build_table.hpp). Host-side interface (no device code).
#include <algorithm>
#include <cstdint>

#include "metawarp/sketch/types.hpp"

namespace metawarp::kernels {

// Device memory: pairs [0, *count) of features/locations (packed target <<
// 32 | window), room for `capacity`. No buffer (count null): nothing is
// bound elsewhere.
struct PairBuffer {
  std::uint64_t* count = nullptr;
  sketch::feature_t* features = nullptr;
  std::uint64_t* locations = nullptr;
  std::uint64_t capacity = 0;
};

// The most pairs `windows` windows give: a window keeps at most s features,
// each from a k-mer starting in it (stride of them). A PairBuffer of this
// capacity never overflows.
inline std::uint64_t max_pairs_of_windows(std::uint64_t windows, const sketch::SketchParams& p) {
  return windows * std::min<std::uint64_t>(p.sketch_size, p.stride());
}

}  // namespace metawarp::kernels
