#pragma once
// One owning, move-only array over an allocator: device_buffer (GPU global
// memory), pinned_buffer (page-locked host memory) and pooled_buffer
// (stream-ordered pool memory, pooled_buffer.hpp) are this with their
// allocator. Sizes are in elements and 64-bit, so buffers beyond 2^31
// elements work. A failed allocation throws naming the size and the kind of
// memory. An allocator may carry state (the pool's stream): the buffer keeps
// a copy, empty allocators cost nothing (empty base).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>

#include "metawarp/cuda/error.hpp"

namespace metawarp::cuda {

struct device_memory {
  static constexpr const char* name = "device memory";
  static cudaError_t allocate(void** raw, std::size_t bytes) { return cudaMalloc(raw, bytes); }
  static void release(void* raw) noexcept { cudaFree(raw); }
};

struct pinned_host_memory {
  static constexpr const char* name = "pinned host memory";
  static cudaError_t allocate(void** raw, std::size_t bytes) { return cudaMallocHost(raw, bytes); }
  static void release(void* raw) noexcept { cudaFreeHost(raw); }
};

template <class T, class Memory>
class owning_buffer : private Memory {
 public:
  owning_buffer() = default;
  explicit owning_buffer(std::size_t size, Memory memory = {}) : Memory(memory), size_(size) {
    if (size_ == 0) return;
    void* raw = nullptr;
    const cudaError_t status = this->memory().allocate(&raw, size_ * sizeof(T));
    if (status != cudaSuccess) {
      size_ = 0;
      check(status, ("allocating " + std::to_string(size * sizeof(T)) + " bytes of " +
                     Memory::name).c_str());
    }
    data_ = static_cast<T*>(raw);
  }
  ~owning_buffer() { release(); }

  owning_buffer(const owning_buffer&) = delete;
  owning_buffer& operator=(const owning_buffer&) = delete;
  owning_buffer(owning_buffer&& other) noexcept
      : Memory(other.memory()),
        data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)) {}
  owning_buffer& operator=(owning_buffer&& other) noexcept {
    if (this != &other) {
      release();
      static_cast<Memory&>(*this) = other.memory();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }

  T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  std::size_t size_bytes() const noexcept { return size_ * sizeof(T); }
  bool empty() const noexcept { return size_ == 0; }

 private:
  const Memory& memory() const noexcept { return *this; }
  void release() noexcept {
    if (data_ != nullptr) memory().release(data_);  // errors cannot be reported from a destructor
    data_ = nullptr;
    size_ = 0;
  }
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace metawarp::cuda
