#pragma once
// Owning, move-only page-locked host array: the fast path for asynchronous
// host<->device copies.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>

#include "metawarp/cuda/error.hpp"

namespace metawarp::cuda {

template <class T>
class pinned_buffer {
 public:
  pinned_buffer() = default;
  explicit pinned_buffer(std::size_t size) : size_(size) {
    if (size_ == 0) return;
    void* raw = nullptr;
    const cudaError_t status = cudaMallocHost(&raw, size_ * sizeof(T));
    if (status != cudaSuccess) {
      size_ = 0;
      check(status, ("allocating " + std::to_string(size * sizeof(T)) +
                     " bytes of pinned host memory").c_str());
    }
    data_ = static_cast<T*>(raw);
  }
  ~pinned_buffer() { release(); }

  pinned_buffer(const pinned_buffer&) = delete;
  pinned_buffer& operator=(const pinned_buffer&) = delete;
  pinned_buffer(pinned_buffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  pinned_buffer& operator=(pinned_buffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }

  T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  T& operator[](std::size_t i) const noexcept { return data_[i]; }
  T* begin() const noexcept { return data_; }
  T* end() const noexcept { return data_ + size_; }

 private:
  void release() noexcept {
    if (data_ != nullptr) cudaFreeHost(data_);
    data_ = nullptr;
    size_ = 0;
  }
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace metawarp::cuda
