#include "pipeline/gpu/selected_gpu.hpp"

#include <cuda_runtime_api.h>

#include <stdexcept>

#include "metawarp/cuda/error.hpp"
#include "pipeline/gpu_available.hpp"

namespace metawarp::pipeline::gpu {

SelectedGpu::SelectedGpu(int device, const std::string& what) : device_(device) {
  const std::string why = gpu_unavailable_reason();
  if (!why.empty())
    throw std::runtime_error("GPU " + what + " requested, but " + why + "; use --device cpu");
  int count = 0;
  cuda::check(cudaGetDeviceCount(&count), "counting CUDA devices");
  if (device < 0 || device >= count)
    throw std::invalid_argument("--gpu " + std::to_string(device) + ": there are only " +
                                std::to_string(count) + " CUDA devices");
  select();
}

void SelectedGpu::select() const { cuda::check(cudaSetDevice(device_), "selecting the GPU"); }

}  // namespace metawarp::pipeline::gpu
