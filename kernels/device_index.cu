#include "kernels/device_index.cuh"

#include "metawarp/cuda/error.hpp"
#include "metawarp/cuda/grid.hpp"

namespace metawarp::kernels {
namespace {

__global__ void build_lookup_kernel(const sketch::feature_t* features, std::uint64_t count,
                                    std::uint64_t* slots, std::uint64_t capacity) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    const std::uint64_t entry = (std::uint64_t(features[i]) << 32) | i;
    std::uint64_t slot = lookup_start(features[i], capacity);
    while (atomicCAS(reinterpret_cast<unsigned long long*>(slots + slot),
                     (unsigned long long)empty_lookup_slot,
                     (unsigned long long)entry) != (unsigned long long)empty_lookup_slot)
      if (++slot == capacity) slot = 0;
  }
}

template <class T>
cuda::device_buffer<T> upload(std::span<const T> host, cudaStream_t stream) {
  cuda::device_buffer<T> device(host.size());
  device.copy_from_host(host.data(), host.size(), stream);
  return device;
}

}  // namespace

DeviceShard::DeviceShard(std::uint64_t features, std::uint64_t locations)
    : features_(features),
      slots_(index::lookup_capacity(features)),
      offsets_(features + 1),
      locations_(locations) {}

void DeviceShard::build_lookup(cudaStream_t stream) {
  slots_.fill_bytes(0xff, stream);
  const std::uint64_t count = features_.size();
  if (count > 0) {
    const unsigned block = 256;
    build_lookup_kernel<<<cuda::blocks_for(count, block), block, 0, stream>>>(
        features_.data(), count, slots_.data(), slots_.size());
    cuda::check_launch("build_lookup_kernel");
  }
  cuda::check(cudaStreamSynchronize(stream), "building the GPU lookup table");
  features_ = cuda::device_buffer<sketch::feature_t>();
}

DeviceIndexTable::DeviceIndexTable(std::span<const ShardView> shards,
                                   std::span<const std::uint32_t> shard_begins,
                                   std::span<const std::uint32_t> window_base, cudaStream_t stream)
    : shards_(upload(shards, stream)),
      shard_begins_(upload(shard_begins, stream)),
      window_base_(upload(window_base, stream)) {
  cuda::check(cudaStreamSynchronize(stream), "uploading the GPU shard table");
}

}  // namespace metawarp::kernels
