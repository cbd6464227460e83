#pragma once
// One window of a build batch sketched on the GPU: the window's piece of its
// target (sketch::SequenceView over the batch's bases), the shared sketch
// rule (sketch.hpp, the CPU's too) and the window's packed location, for
// the fused build kernel (sketch_insert.cuh); features equal to a table
// sentinel go to the spill.
#include <cstdint>

#include "kernels/build_batch.hpp"
#include "kernels/build_table.hpp"
#include "kernels/window_owner.cuh"
#include "metawarp/sketch/sketch.hpp"

namespace metawarp::kernels {

// Writes window w's features (at most sketch::max_sketch_size) and returns
// how many; `location` receives its packed (target, window).
__device__ inline std::uint32_t sketch_batch_window(const BatchView& batch,
                                                    const sketch::SketchParams& params,
                                                    std::uint64_t w, sketch::feature_t* features,
                                                    std::uint64_t& location) {
  const BatchSegment seg = batch.segments[owner_of_window(batch.segments, batch.segment_count, w)];
  const std::uint64_t window = seg.first_window + (w - seg.window_prefix);
  const sketch::SequenceView piece{batch.bases + seg.base_offset, seg.target_offset,
                                   seg.target_length};
  location = sketch::Location{seg.target, sketch::window_id_t(window)}.packed();
  return sketch::sketch_window(piece, window, params, features);
}

// A feature equal to a table sentinel (not a valid key) into the side list.
__device__ inline void spill_pair(const SentinelSpill& spill, std::uint32_t feature,
                                  std::uint64_t location) {
  const std::uint64_t at = atomicAdd(reinterpret_cast<unsigned long long*>(spill.count), 1ull);
  if (at < spill.capacity) {
    spill.features[at] = feature;
    spill.locations[at] = location;
  }
}

}  // namespace metawarp::kernels
