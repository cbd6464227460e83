#pragma once
// Owning, move-only handle to an array in GPU global memory. Sizes are in
// elements and 64-bit, so buffers beyond 2^31 elements work.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>

#include "metawarp/cuda/error.hpp"

namespace metawarp::cuda {

template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t size) : size_(size) {
    if (size_ == 0) return;
    void* raw = nullptr;
    const cudaError_t status = cudaMalloc(&raw, size_ * sizeof(T));
    if (status != cudaSuccess) {
      size_ = 0;
      check(status, ("allocating " + std::to_string(size * sizeof(T)) +
                     " bytes of device memory").c_str());
    }
    data_ = static_cast<T*>(raw);
  }
  ~device_buffer() { release(); }

  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  device_buffer& operator=(device_buffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }

  T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  std::size_t size_bytes() const noexcept { return size_ * sizeof(T); }
  bool empty() const noexcept { return size_ == 0; }

  // Byte-wise fill (e.g. 0 or 0xff), asynchronous on `stream`.
  void fill_bytes(int byte, cudaStream_t stream = nullptr) {
    if (size_ == 0) return;
    check(cudaMemsetAsync(data_, byte, size_bytes(), stream), "cudaMemsetAsync on device_buffer");
  }
  // Copies `count` elements from host memory into the buffer start (async).
  void copy_from_host(const T* host, std::size_t count, cudaStream_t stream = nullptr) {
    if (count == 0) return;
    check(cudaMemcpyAsync(data_, host, count * sizeof(T), cudaMemcpyHostToDevice, stream),
          "copying host data to a device_buffer");
  }
  // Copies `count` elements from the buffer start to host memory (async).
  void copy_to_host(T* host, std::size_t count, cudaStream_t stream = nullptr) const {
    if (count == 0) return;
    check(cudaMemcpyAsync(host, data_, count * sizeof(T), cudaMemcpyDeviceToHost, stream),
          "copying a device_buffer to host memory");
  }

 private:
  void release() noexcept {
    if (data_ != nullptr) cudaFree(data_);  // errors here cannot be reported from a destructor
    data_ = nullptr;
    size_ = 0;
  }
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace metawarp::cuda
