#pragma once
// Owning, move-only CUDA event, with timing between two events.
#include <cuda_runtime_api.h>

#include <utility>

#include "metawarp/cuda/error.hpp"

namespace metawarp::cuda {

class event {
 public:
  event() { check(cudaEventCreate(&handle_), "cudaEventCreate"); }
  // With flags, e.g. cudaEventDisableTiming for an event that only orders streams.
  explicit event(unsigned flags) {
    check(cudaEventCreateWithFlags(&handle_, flags), "cudaEventCreateWithFlags");
  }
  ~event() {
    if (handle_ != nullptr) cudaEventDestroy(handle_);
  }
  event(const event&) = delete;
  event& operator=(const event&) = delete;
  event(event&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  event& operator=(event&& other) noexcept {
    if (this != &other) {
      if (handle_ != nullptr) cudaEventDestroy(handle_);
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }

  cudaEvent_t get() const noexcept { return handle_; }
  void record(cudaStream_t stream) { check(cudaEventRecord(handle_, stream), "cudaEventRecord"); }
  void synchronize() const { check(cudaEventSynchronize(handle_), "cudaEventSynchronize"); }

  // Milliseconds between `start` and this event (both recorded and completed).
  float elapsed_ms_since(const event& start) const {
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start.handle_, handle_), "cudaEventElapsedTime");
    return ms;
  }

 private:
  cudaEvent_t handle_ = nullptr;
};

}  // namespace metawarp::cuda
