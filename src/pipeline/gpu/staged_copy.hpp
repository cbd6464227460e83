#pragma once
// Copies between pageable host memory and the GPU through two pinned staging
// buffers, so that the DMA of one chunk overlaps the host's copy of the
// previous one (pageable copies would be staged by the driver, synchronously
// and several times slower).
#include <cuda_runtime_api.h>

#include <cstddef>

#include "metawarp/cuda/event.hpp"
#include "metawarp/cuda/pinned_buffer.hpp"

namespace metawarp::pipeline::gpu {

class StagedCopy {
 public:
  static constexpr std::size_t chunk_bytes = std::size_t(64) << 20;

  explicit StagedCopy(cudaStream_t stream);
  ~StagedCopy();  // waits for copies still queued: the staging outlives them

  // Host -> device; returns with the last chunk still on its way (the
  // stream orders what follows).
  void upload(void* device, const void* host, std::size_t bytes, const char* what);
  // Device -> host; the host's copies of a chunk are shared by all cores.
  void download(void* host, const void* device, std::size_t bytes, const char* what);

 private:
  cudaStream_t stream_;
  cuda::pinned_buffer<char> staging_[2];
  cuda::event done_[2];
  bool used_[2] = {false, false};
  int next_ = 0;
};

}  // namespace metawarp::pipeline::gpu
