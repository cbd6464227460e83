#pragma once
// The batches of the GPU builds (the one-GPU executor and the multi-GPU one):
// targets packed on the host into pinned batches, cut at window boundaries,
// uploaded whole, and the side list of features equal to a table sentinel.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "db/database.hpp"
#include "kernels/build_batch.hpp"
#include "kernels/build_table.hpp"
#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/cuda/pinned_buffer.hpp"
#include "metawarp/sketch/types.hpp"
#include "pipeline/build/build_executor.hpp"

namespace metawarp::pipeline::gpu {

inline constexpr std::uint32_t max_batch_segments = 1u << 16;

// Throws std::runtime_error naming --batch-size when `batch_bases` cannot
// hold one window and its context.
void check_batch_size(std::uint64_t batch_bases, const sketch::SketchParams& params);

// The most windows a batch of `batch_bases` holds (pack_windows' rule: a
// piece of n windows carries at least (n - 1) * stride + 1 bases).
std::uint64_t max_batch_windows(std::uint64_t batch_bases, const sketch::SketchParams& params);

// A batch being filled on the host (pinned, for asynchronous uploads).
struct HostBatch {
  cuda::pinned_buffer<char> bases;
  cuda::pinned_buffer<kernels::BatchSegment> segments;
  std::uint64_t used = 0;     // bases
  std::uint64_t windows = 0;  // of all segments
  std::uint32_t segment_count = 0;

  explicit HostBatch(std::uint64_t batch_bases);
  void clear() { used = windows = segment_count = 0; }
};

// Appends windows [w0, ...) of `target` to `batch`, cut at window boundaries
// (each piece carries the bases its windows' sketches read:
// sketch::window_bases, their own and their context). Returns the first
// window not packed: w0 when the batch is full (submit it, pack the rest into
// an empty one; an empty batch takes at least one window: check_batch_size).
std::uint64_t pack_windows(HostBatch& batch, const TargetSequence& target, std::uint64_t w0,
                           const sketch::SketchParams& params);

// A batch's buffers on the GPU.
struct DeviceBatch {
  cuda::device_buffer<char> bases;
  cuda::device_buffer<kernels::BatchSegment> segments;

  explicit DeviceBatch(std::uint64_t batch_bases);
  // Queues the upload of `host` on `stream`; the view of the uploaded batch.
  kernels::BatchView upload(const HostBatch& host, cudaStream_t stream);
};

// Features equal to a table sentinel (kernels::SentinelSpill) on the current GPU.
class SpillBuffers {
 public:
  static constexpr std::uint64_t capacity = 1u << 20;

  explicit SpillBuffers(cudaStream_t stream);  // cleared on `stream`
  kernels::SentinelSpill view() const;
  // The spilled pairs (waits for `stream`); throws when more than fit.
  std::vector<db::Entry> read(cudaStream_t stream) const;

 private:
  cuda::device_buffer<std::uint64_t> count_{1};
  cuda::device_buffer<sketch::feature_t> features_{capacity};
  cuda::device_buffer<std::uint64_t> locations_{capacity};
};

}  // namespace metawarp::pipeline::gpu
