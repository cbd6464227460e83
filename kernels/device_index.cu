#include "kernels/device_index.cuh"

#include "metawarp/cuda/error.hpp"
#include "metawarp/cuda/grid.hpp"

namespace metawarp::kernels {
namespace {

__global__ void build_lookup_kernel(const sketch::feature_t* features, std::uint64_t count,
                                    std::uint64_t* slots, std::uint64_t mask) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    const std::uint64_t entry = (std::uint64_t(features[i]) << 32) | i;
    std::uint64_t slot = lookup_hash(features[i]) & mask;
    while (atomicCAS(reinterpret_cast<unsigned long long*>(slots + slot),
                     (unsigned long long)empty_lookup_slot,
                     (unsigned long long)entry) != (unsigned long long)empty_lookup_slot)
      slot = (slot + 1) & mask;
  }
}

}  // namespace

DeviceIndex::DeviceIndex(std::uint64_t features, std::uint64_t slots, std::uint64_t locations)
    : features_(features), slots_(slots), offsets_(features + 1), locations_(locations) {}

void DeviceIndex::build_lookup(cudaStream_t stream) {
  slots_.fill_bytes(0xff, stream);
  const std::uint64_t count = features_.size();
  if (count > 0) {
    const unsigned block = 256;
    build_lookup_kernel<<<cuda::blocks_for(count, block), block, 0, stream>>>(
        features_.data(), count, slots_.data(), slots_.size() - 1);
    cuda::check_launch("build_lookup_kernel");
  }
  cuda::check(cudaStreamSynchronize(stream), "building the GPU lookup table");
  features_ = cuda::device_buffer<sketch::feature_t>();
}

}  // namespace metawarp::kernels
