#pragma once
// Buffers reused for inputs of varying size (pinned or device) only grow, by
// half again at least, so their user stops allocating once it has seen its
// largest input.
#include <algorithm>
#include <cstddef>

#include "metawarp/config.hpp"

namespace metawarp::cuda {

// Makes `buffer` (a device_buffer or pinned_buffer) hold at least `size`
// elements; its contents are not kept.
template <class Buffer>
void grow_to(Buffer& buffer, std::size_t size) {
  if (buffer.size() >= size) return;
  const std::size_t grown = std::max(size, buffer.size() + buffer.size() / 2);
  buffer = Buffer();  // free first: the old and new buffer need not coexist
  buffer = Buffer(grown);
}

}  // namespace metawarp::cuda
