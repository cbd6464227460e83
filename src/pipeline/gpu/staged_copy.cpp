#include "pipeline/gpu/staged_copy.hpp"

#include <algorithm>
#include <cstring>

#include "metawarp/cuda/error.hpp"
#include "metawarp/host/parallel_for.hpp"

namespace metawarp::pipeline::gpu {
namespace {

void parallel_copy(char* dst, const char* src, std::size_t bytes) {
  host::parallel_ranges(bytes, host::parts_for(bytes, std::size_t(4) << 20),
                        [=](std::size_t b, std::size_t e) { std::memcpy(dst + b, src + b, e - b); });
}

}  // namespace

StagedCopy::StagedCopy(cudaStream_t stream) : stream_(stream) {
  for (auto& s : staging_) s = cuda::pinned_buffer<char>(chunk_bytes);
}

StagedCopy::~StagedCopy() { cudaStreamSynchronize(stream_); }

void StagedCopy::upload(void* device, const void* host, std::size_t bytes, const char* what) {
  auto* dst = static_cast<char*>(device);
  const auto* src = static_cast<const char*>(host);
  for (std::size_t done = 0; done < bytes;) {
    const std::size_t n = std::min(chunk_bytes, bytes - done);
    if (used_[next_]) done_[next_].synchronize();
    parallel_copy(staging_[next_].data(), src + done, n);
    cuda::check(cudaMemcpyAsync(dst + done, staging_[next_].data(), n, cudaMemcpyHostToDevice,
                                stream_), what);
    done_[next_].record(stream_);
    used_[next_] = true;
    next_ ^= 1;
    done += n;
  }
}

void StagedCopy::download(void* host, const void* device, std::size_t bytes, const char* what) {
  auto* dst = static_cast<char*>(host);
  const auto* src = static_cast<const char*>(device);
  const std::size_t chunks = (bytes + chunk_bytes - 1) / chunk_bytes;
  // Chunk c is copied into staging_[c % 2] while the host copies chunk c - 1 out.
  std::size_t pending = 0;  // bytes of chunk c - 1 waiting in its staging buffer
  for (std::size_t c = 0; c <= chunks; ++c) {
    if (c < chunks) {
      if (used_[c % 2]) done_[c % 2].synchronize();
      const std::size_t size = std::min(chunk_bytes, bytes - c * chunk_bytes);
      cuda::check(cudaMemcpyAsync(staging_[c % 2].data(), src + c * chunk_bytes, size,
                                  cudaMemcpyDeviceToHost, stream_), what);
      done_[c % 2].record(stream_);
      used_[c % 2] = true;
    }
    if (c > 0) parallel_copy(dst + (c - 1) * chunk_bytes, staging_[(c - 1) % 2].data(), pending);
    if (c < chunks) {
      done_[c % 2].synchronize();
      pending = std::min(chunk_bytes, bytes - c * chunk_bytes);
    }
  }
}

}  // namespace metawarp::pipeline::gpu
