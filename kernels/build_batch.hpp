#pragma once
// The layout of one GPU build batch: reference bases concatenated in a pinned
// buffer, and one segment per (piece of a) target. A target longer than a
// batch is cut at window boundaries: a segment holding windows [w0, w1)
// carries the bases sketch::window_bases names (from w0*stride up to the end
// of window w1-1, and for minimizers up to W-1 k-mers of context either side,
// clipped to the target), and the sketch rule is told where the piece lies in
// the target and the target's length, so every window is sketched as the CPU
// sketches it from the whole target.
#include <cstdint>

#include "metawarp/sketch/types.hpp"

namespace metawarp::kernels {

struct BatchSegment {
  std::uint64_t base_offset;    // first base in the batch buffer
  std::uint64_t target_offset;  // the target's position of that base
  std::uint64_t target_length;  // the whole target's bases
  std::uint64_t window_prefix;  // windows of the batch's earlier segments
  sketch::target_id_t target;
  sketch::window_id_t first_window;  // target window id of the piece's window 0
};

// A batch in device memory.
struct BatchView {
  const char* bases;
  const BatchSegment* segments;
  std::uint32_t segment_count;
  std::uint64_t windows;  // of all segments
};

}  // namespace metawarp::kernels
