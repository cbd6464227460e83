#pragma once
// Owning, move-only CUDA stream and event.
#include <cuda_runtime_api.h>

#include <utility>

#include "metawarp/cuda/error.hpp"

namespace metawarp::cuda {

class stream {
 public:
  stream() { check(cudaStreamCreateWithFlags(&handle_, cudaStreamNonBlocking), "cudaStreamCreate"); }
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

}  // namespace metawarp::cuda
