#pragma once
// Owning, move-only CUDA stream and event.
#include <cuda_runtime_api.h>

#include <utility>

#include "metawarp/cuda/error.hpp"

namespace metawarp::cuda {

class stream {
 public:
  stream() { check(cudaStreamCreateWithFlags(&handle_, cudaStreamNonBlocking), "cudaStreamCreate"); }
  // With a priority of the current device (cudaDeviceGetStreamPriorityRange:
  // lower numbers first): pending blocks of a higher-priority stream's
  // kernels are scheduled before those of lower-priority streams.
  explicit stream(int priority) {
    check(cudaStreamCreateWithPriority(&handle_, cudaStreamNonBlocking, priority),
          "cudaStreamCreateWithPriority");
  }
  ~stream() {
    if (handle_ != nullptr) cudaStreamDestroy(handle_);
  }
  stream(const stream&) = delete;
  stream& operator=(const stream&) = delete;
  stream(stream&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  stream& operator=(stream&& other) noexcept {
    if (this != &other) {
      if (handle_ != nullptr) cudaStreamDestroy(handle_);
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }

  cudaStream_t get() const noexcept { return handle_; }
  operator cudaStream_t() const noexcept { return handle_; }
  void synchronize() const { check(cudaStreamSynchronize(handle_), "cudaStreamSynchronize"); }

 private:
  cudaStream_t handle_ = nullptr;
};

// The current device's highest stream priority (the numerically lowest).
inline int greatest_stream_priority() {
  int least = 0, greatest = 0;
  check(cudaDeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange");
  return greatest;
}

}  // namespace metawarp::cuda
