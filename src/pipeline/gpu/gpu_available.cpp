#include "pipeline/gpu_available.hpp"

#include <cuda_runtime_api.h>

#include <exception>

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

GpuStartUp::GpuStartUp(const std::vector<int>& devices) {
  try {
    for (const int device : devices)
      threads_.spawn([device] {
        if (cudaSetDevice(device) == cudaSuccess) (void)cudaFree(nullptr);
        (void)cudaGetLastError();  // the first real use says what failed
      });
  } catch (const std::exception&) {
    // No thread to spare: the GPUs start when first used, as without this.
  }
}

GpuStartUp::~GpuStartUp() {
  try {
    threads_.join();
  } catch (...) {
  }
}

}  // namespace metawarp::pipeline
