#include "pipeline/gpu_available.hpp"

#include <cuda_runtime_api.h>

namespace metawarp::pipeline {

std::string gpu_unavailable_reason() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return std::string("no usable CUDA device (") + cudaGetErrorString(err) + ")";
  }
  if (count == 0) return "no CUDA device found";
  return {};
}

}  // namespace metawarp::pipeline
