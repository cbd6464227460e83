#pragma once
// A loaded database's feature index, uploaded to the GPU for the query.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <optional>
#include <vector>

#include "db/database.hpp"
#include "kernels/device_index.hpp"
#include "metawarp/cuda/event.hpp"
#include "metawarp/cuda/pinned_buffer.hpp"
#include "metawarp/host/channel.hpp"

namespace metawarp::pipeline::gpu {

// Uploads `index` and builds its lookup table; returns when done. Throws
// std::runtime_error saying what it needs when it does not fit.
kernels::DeviceIndex upload_index(const db::FeatureIndex& index, cudaStream_t stream);

// The same, while db::load() reads the file: passed to load() as its
// observer, it sends every chunk read through a pinned staging buffer to the
// GPU at once, so that the copies to the GPU overlap the reading of the next
// chunks (and the per-read work can start right after the load):
//
//   StreamingIndexUpload upload(stream);
//   db::Database db = db::load(path, threads, &upload);
//   kernels::DeviceIndex index = upload.finish();
//
// The reading threads share a pool of staging buffers; a buffer is reused
// once the copy out of it has completed (its event). Nothing uploaded is used
// unless load() returned (it checks the checksums after the chunks went).
class StreamingIndexUpload final : public db::IndexReadObserver {
 public:
  explicit StreamingIndexUpload(cudaStream_t stream);
  ~StreamingIndexUpload() override;  // waits for copies still queued
  StreamingIndexUpload(const StreamingIndexUpload&) = delete;
  StreamingIndexUpload& operator=(const StreamingIndexUpload&) = delete;

  // Allocates the device index (throws when it does not fit, as upload_index).
  void sizes(std::uint64_t features, std::uint64_t locations) override;
  void chunk(Array array, std::uint64_t begin, const void* data, std::size_t bytes) override;
  // Waits for the copies and builds the lookup; call once, after load().
  kernels::DeviceIndex finish();

 private:
  struct Staging {
    cuda::pinned_buffer<char> buffer;
    cuda::event copied;
    bool used = false;
  };
  cudaStream_t stream_;
  int device_ = 0;  // the stream's, selected on every reading thread
  std::vector<Staging> staging_;
  host::Channel<std::size_t> idle_;  // staging buffers free to fill
  std::optional<kernels::DeviceIndex> index_;
};

}  // namespace metawarp::pipeline::gpu
