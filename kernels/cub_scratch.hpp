#pragma once
// Scratch memory for CUB's device algorithms, reused from call to call: each
// call is sized first and the buffer grows only when a call needs more, so a
// user that runs the same calls again stops allocating.
#include <algorithm>
#include <cstddef>

#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/cuda/error.hpp"
#include "metawarp/cuda/grow.hpp"

namespace metawarp::kernels {

class CubScratch {
 public:
  // `call(temp, bytes)` is a CUB algorithm with its arguments bound: called
  // with nullptr to size the scratch, then for real.
  template <class Call>
  void run(Call call, const char* what) {
    std::size_t bytes = 0;
    cuda::check(call(nullptr, bytes), what);
    cuda::grow_to(buffer_, std::max<std::size_t>(bytes, 1));
    bytes = buffer_.size();
    cuda::check(call(buffer_.data(), bytes), what);
  }

 private:
  cuda::device_buffer<char> buffer_;
};

}  // namespace metawarp::kernels
