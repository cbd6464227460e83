#include "pipeline/gpu/selected_gpu.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
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

std::vector<SelectedGpu> open_gpus(const ShardLayout& layout) {
  if (layout.devices.empty() || layout.shards_per_gpu == 0)
    throw std::invalid_argument("the GPU query needs at least one GPU and one shard per GPU");
  const std::string why = gpu_unavailable_reason();
  if (!why.empty()) throw std::runtime_error("GPU query requested, but " + why + "; use --device cpu");
  int count = 0;
  cuda::check(cudaGetDeviceCount(&count), "counting CUDA devices");
  for (int d : layout.devices)
    if (d < 0 || d >= count)
      throw std::invalid_argument("GPU " + std::to_string(d) + " requested (" +
                                  describe(layout) + "), but this host has " +
                                  std::to_string(count) + " CUDA device" +
                                  (count == 1 ? "" : "s") +
                                  (count > 0 ? " (0-" + std::to_string(count - 1) + ")" : "") +
                                  "; use --gpus with existing devices");
  std::vector<SelectedGpu> gpus;
  for (auto d = layout.devices.rbegin(); d != layout.devices.rend(); ++d)
    gpus.emplace_back(*d, "query");
  std::reverse(gpus.begin(), gpus.end());  // the first selected last: it stays selected
  return gpus;
}

}  // namespace metawarp::pipeline::gpu
