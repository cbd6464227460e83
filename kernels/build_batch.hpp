#pragma once
// The layout of one GPU build batch: reference bases concatenated in a pinned
// buffer, and one segment per (piece of a) target. A target longer than a
// batch is cut at window boundaries: a segment holding windows [w0, w1) carries
// the bases from w0*stride up to the end of window w1-1 (k-1 bases of overlap
// with the next piece), so every window is sketched from exactly the bases the
// CPU path sees.
#include <cstdint>

#include "metawarp/sketch/types.hpp"

namespace metawarp::kernels {

struct BatchSegment {
  std::uint64_t base_offset;    // first base in the batch buffer
  std::uint64_t length;         // bases of this piece
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
