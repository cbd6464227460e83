#pragma once
// Grid sizes for kernels that loop grid-stride over their items.
#include <algorithm>
#include <cstdint>

#include "metawarp/config.hpp"

namespace metawarp::cuda {

// Blocks of `block` threads for `threads` threads: at least 1, at most 2^20
// (enough to fill any current GPU; kernels loop grid-stride beyond).
inline unsigned blocks_for(std::uint64_t threads, unsigned block) {
  const std::uint64_t blocks = (threads + block - 1) / block;
  return unsigned(std::clamp<std::uint64_t>(blocks, 1, std::uint64_t(1) << 20));
}

}  // namespace metawarp::cuda
