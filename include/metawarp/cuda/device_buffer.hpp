#pragma once
// Owning, move-only array in GPU global memory (owning_buffer over
// device_memory, or over a memory pool: pooled_buffer.hpp) with the
// asynchronous fills and copies the tables use; every one names its stream.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <span>

#include "metawarp/cuda/error.hpp"
#include "metawarp/cuda/owning_buffer.hpp"

namespace metawarp::cuda {

template <class T, class Memory = device_memory>
class device_buffer : public owning_buffer<T, Memory> {
 public:
  using owning_buffer<T, Memory>::owning_buffer;

  // Byte-wise fill (e.g. 0 or 0xff), asynchronous on `stream`.
  void fill_bytes(int byte, cudaStream_t stream) {
    if (this->empty()) return;
    check(cudaMemsetAsync(this->data(), byte, this->size_bytes(), stream),
          "cudaMemsetAsync on device_buffer");
  }
  // Copies `count` elements from host memory into the buffer start (async).
  void copy_from_host(const T* host, std::size_t count, cudaStream_t stream) {
    if (count == 0) return;
    check(cudaMemcpyAsync(this->data(), host, count * sizeof(T), cudaMemcpyHostToDevice, stream),
          "copying host data to a device_buffer");
  }
  // Copies `count` elements from the buffer start to host memory (async).
  void copy_to_host(T* host, std::size_t count, cudaStream_t stream) const {
    if (count == 0) return;
    check(cudaMemcpyAsync(host, this->data(), count * sizeof(T), cudaMemcpyDeviceToHost, stream),
          "copying a device_buffer to host memory");
  }
};

// A new buffer holding a copy of `host`, asynchronous on `stream` (`host`
// must stay until the stream has run the copy).
template <class T>
device_buffer<T> copy_to_device(std::span<const T> host, cudaStream_t stream) {
  device_buffer<T> device(host.size());
  device.copy_from_host(host.data(), host.size(), stream);
  return device;
}

}  // namespace metawarp::cuda
