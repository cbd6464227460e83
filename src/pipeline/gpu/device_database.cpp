#include "pipeline/gpu/device_database.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "db/file_format.hpp"
#include "metawarp/cuda/error.hpp"
#include "pipeline/gpu/staged_copy.hpp"
#include "pipeline/gpu_query.hpp"

namespace metawarp::pipeline::gpu {
namespace {

constexpr const char* uploading = "uploading the database to the GPU";

// The device arrays for the index, once it is clear that they fit.
kernels::DeviceIndex allocate_index(std::uint64_t features, std::uint64_t locations) {
  if (features >= 0xffffffffull)
    throw std::runtime_error("the database holds too many distinct features for the GPU lookup");
  // The sorted features stay on the GPU until the lookup is built.
  const std::uint64_t needed =
      gpu_database_bytes(features, locations) + features * sizeof(sketch::feature_t);
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
  return kernels::DeviceIndex(features, gpu_lookup_slots(features), locations);
}

// Two staging buffers per core: one being filled, one being copied.
std::size_t staging_buffers() {
  return 2 * std::clamp(std::thread::hardware_concurrency(), 1u, 32u);
}

}  // namespace

kernels::DeviceIndex upload_index(const db::FeatureIndex& index, cudaStream_t stream) {
  kernels::DeviceIndex device = allocate_index(index.feature_count(), index.location_count());
  {
    StagedCopy copy(stream);
    copy.upload(device.features(), index.features().data(),
                index.feature_count() * sizeof(sketch::feature_t), uploading);
    copy.upload(device.offsets(), index.offsets().data(),
                index.offsets().size() * sizeof(std::uint64_t), uploading);
    copy.upload(device.locations(), index.locations().data(),
                index.location_count() * sizeof(sketch::Location), uploading);
  }
  device.build_lookup(stream);
  return device;
}

StreamingIndexUpload::StreamingIndexUpload(cudaStream_t stream)
    : stream_(stream), staging_(staging_buffers()), idle_(staging_.size()) {
  cuda::check(cudaGetDevice(&device_), uploading);
  for (std::size_t i = 0; i < staging_.size(); ++i) {
    staging_[i].buffer = cuda::pinned_buffer<char>(db::file_format::checksum_chunk_bytes);
    idle_.push(i);
  }
}

StreamingIndexUpload::~StreamingIndexUpload() { cudaStreamSynchronize(stream_); }

void StreamingIndexUpload::sizes(std::uint64_t features, std::uint64_t locations) {
  index_.emplace(allocate_index(features, locations));
}

void StreamingIndexUpload::chunk(Array array, std::uint64_t begin, const void* data,
                                 std::size_t bytes) {
  if (!index_) throw std::logic_error("StreamingIndexUpload: a chunk before the sizes");
  char* device = array == Array::features  ? reinterpret_cast<char*>(index_->features())
                 : array == Array::offsets ? reinterpret_cast<char*>(index_->offsets())
                                           : reinterpret_cast<char*>(index_->locations());
  const auto* host = static_cast<const char*>(data);
  // load()'s reading threads call this: the CUDA device is a per-thread setting.
  cuda::check(cudaSetDevice(device_), uploading);
  std::size_t slot = 0;
  if (!idle_.pop(slot)) throw std::logic_error("StreamingIndexUpload: no staging buffers");
  Staging& s = staging_[slot];
  try {
    // Chunks are at most one staging buffer; larger ones go in pieces.
    for (std::size_t done = 0; done < bytes;) {
      const std::size_t n = std::min(bytes - done, s.buffer.size());
      if (s.used) s.copied.synchronize();  // the copy out of it has completed
      std::memcpy(s.buffer.data(), host + done, n);
      cuda::check(cudaMemcpyAsync(device + begin + done, s.buffer.data(), n,
                                  cudaMemcpyHostToDevice, stream_),
                  uploading);
      s.copied.record(stream_);
      s.used = true;
      done += n;
    }
  } catch (...) {
    idle_.push(slot);  // others may still wait for a buffer
    throw;
  }
  idle_.push(slot);
}

kernels::DeviceIndex StreamingIndexUpload::finish() {
  if (!index_) throw std::logic_error("StreamingIndexUpload: finish() before the sizes");
  cuda::check(cudaStreamSynchronize(stream_), uploading);
  index_->build_lookup(stream_);
  kernels::DeviceIndex index = std::move(*index_);
  index_.reset();
  return index;
}

}  // namespace metawarp::pipeline::gpu
