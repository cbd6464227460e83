#include "kernels/device_database.cuh"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "metawarp/cuda/event.hpp"
#include "metawarp/cuda/pinned_buffer.hpp"
#include "pipeline/gpu_query.hpp"

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

// Host -> device through two pinned staging buffers: the host fills one while
// the other is on its way (pageable copies would be staged by the driver,
// synchronously and slower).
class StagedUploader {
 public:
  explicit StagedUploader(cudaStream_t stream) : stream_(stream) {
    for (auto& s : staging_) s = cuda::pinned_buffer<char>(chunk_bytes);
  }
  void upload(void* device, const void* host, std::uint64_t bytes) {
    auto* dst = static_cast<char*>(device);
    const auto* src = static_cast<const char*>(host);
    for (std::uint64_t done = 0; done < bytes;) {
      const std::uint64_t n = std::min(chunk_bytes, bytes - done);
      if (used_[next_]) done_[next_].synchronize();
      std::memcpy(staging_[next_].data(), src + done, n);
      cuda::check(cudaMemcpyAsync(dst + done, staging_[next_].data(), n, cudaMemcpyHostToDevice,
                                  stream_),
                  "uploading the database to the GPU");
      done_[next_].record(stream_);
      used_[next_] = true;
      next_ ^= 1;
      done += n;
    }
  }
  ~StagedUploader() { cudaStreamSynchronize(stream_); }  // staging outlives its copies

 private:
  static constexpr std::uint64_t chunk_bytes = std::uint64_t(32) << 20;
  cudaStream_t stream_;
  cuda::pinned_buffer<char> staging_[2];
  cuda::event done_[2];
  bool used_[2] = {false, false};
  int next_ = 0;
};

}  // namespace

DeviceDatabase::DeviceDatabase(const db::FeatureIndex& index, cudaStream_t stream) {
  const std::uint64_t features = index.feature_count();
  if (features >= 0xffffffffull)
    throw std::runtime_error("the database holds too many distinct features for the GPU lookup");
  const std::uint64_t needed = pipeline::gpu_database_bytes(features, index.location_count()) +
                               features * sizeof(sketch::feature_t);
  std::size_t free_bytes = 0, total_bytes = 0;
  cuda::check(cudaMemGetInfo(&free_bytes, &total_bytes), "querying free GPU memory");
  if (needed > free_bytes) {
    char msg[256];
    std::snprintf(msg, sizeof msg,
                  "the database needs %.2f GiB of GPU memory to query, but only %.2f GiB are "
                  "free; use --device cpu",
                  double(needed) / (1 << 30), double(free_bytes) / (1 << 30));
    throw std::runtime_error(msg);
  }
  slots_ = cuda::device_buffer<std::uint64_t>(pipeline::gpu_lookup_slots(features));
  offsets_ = cuda::device_buffer<std::uint64_t>(index.offsets().size());
  locations_ = cuda::device_buffer<sketch::Location>(index.location_count());
  cuda::device_buffer<sketch::feature_t> sorted_features(features);
  slots_.fill_bytes(0xff, stream);
  {
    StagedUploader uploader(stream);
    uploader.upload(sorted_features.data(), index.features().data(),
                    features * sizeof(sketch::feature_t));
    uploader.upload(offsets_.data(), index.offsets().data(), offsets_.size_bytes());
    uploader.upload(locations_.data(), index.locations().data(), locations_.size_bytes());
  }
  if (features > 0) {
    const unsigned block = 256;
    const auto blocks = unsigned(std::min<std::uint64_t>((features + block - 1) / block, 1u << 20));
    build_lookup_kernel<<<blocks, block, 0, stream>>>(sorted_features.data(), features,
                                                      slots_.data(), slots_.size() - 1);
    cuda::check_launch("build_lookup_kernel");
  }
  cuda::check(cudaStreamSynchronize(stream), "building the GPU lookup table");
}

}  // namespace metawarp::kernels
