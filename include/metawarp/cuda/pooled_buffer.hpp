#pragma once
// Owning, move-only device array from the current device's memory pool
// (memory_pool.hpp), allocated and freed in stream order: cudaMallocAsync
// and cudaFreeAsync on the stream it was made for, which cost no driver
// allocation once the pool holds the memory (a warmed call allocates nothing)
// and never wait for the device as cudaFree does.
//
// The stream must outlive the buffer. Work on other streams that uses the
// buffer must be ordered before its end (here every phase of an operation
// ends with all its streams synchronised), and work on other streams may use
// it only once its allocation has run on its stream (the same).
#include <cuda_runtime_api.h>

#include <cstddef>

#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/cuda/error.hpp"
#include "metawarp/cuda/memory_pool.hpp"

namespace metawarp::cuda {

// The allocator of a pooled_buffer: its pool, device and stream.
struct pooled_memory {
  static constexpr const char* name = "pooled device memory";
  cudaMemPool_t pool = nullptr;
  cudaStream_t stream = nullptr;
  int device = 0;

  cudaError_t allocate(void** raw, std::size_t bytes) const {
    return cudaMallocFromPoolAsync(raw, bytes, pool, stream);
  }
  // Freed with its device current, as its stream belongs to that device
  // (buffers of several shards' devices end in one scope).
  void release(void* raw) const noexcept {
    int current = device;
    cudaGetDevice(&current);
    if (current != device) cudaSetDevice(device);
    cudaFreeAsync(raw, stream);  // errors cannot be reported from a destructor
    if (current != device) cudaSetDevice(current);
  }
};

template <class T>
using pooled_buffer = device_buffer<T, pooled_memory>;

// `size` elements from the current device's pool, usable on `stream` (a
// stream of the current device).
template <class T>
pooled_buffer<T> make_pooled(std::size_t size, cudaStream_t stream) {
  int device = 0;
  check(cudaGetDevice(&device), "reading the current device");
  return pooled_buffer<T>(size, pooled_memory{device_pool(device), stream, device});
}

// Makes `buffer` hold at least `size` elements on `stream` (contents not
// kept): scratch reused across the steps of one operation.
template <class T>
void reserve_pooled(pooled_buffer<T>& buffer, std::size_t size, cudaStream_t stream) {
  if (buffer.size() >= size) return;
  buffer = pooled_buffer<T>();
  buffer = make_pooled<T>(size, stream);
}

}  // namespace metawarp::cuda
