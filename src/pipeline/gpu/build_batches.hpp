#pragma once
// The batches of the GPU builds (the one-GPU executor and the multi-GPU one):
// targets packed on the host into pinned batches, cut at window boundaries,
// uploaded whole, and the side list of features equal to a table sentinel.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "db/database.hpp"
#include "kernels/build_batch.hpp"
#include "kernels/build_table.hpp"
#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/cuda/pinned_buffer.hpp"
#include "metawarp/host/copy_pool.hpp"
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

// A batch being filled on the host (pinned, for asynchronous uploads). Its
// bases are copied in by a host::CopyPool: wait for `copies` before the
// upload reads them or clear() reuses the buffer.
struct HostBatch {
  cuda::pinned_buffer<char> bases;
  cuda::pinned_buffer<kernels::BatchSegment> segments;
  std::uint64_t used = 0;     // bases
  std::uint64_t windows = 0;  // of all segments
  std::uint32_t segment_count = 0;
  std::unique_ptr<host::CopyGroup> copies = std::make_unique<host::CopyGroup>();

  explicit HostBatch(std::uint64_t batch_bases);
  void clear() { used = windows = segment_count = 0; }
};

// How many threads copy the targets' bases into the batches, beside the
// build's `threads` readers: a quarter of them, at most 8 (one core copies
// about 10 GB/s; the driver thread, which decides where every piece goes in
// target-id order, copied them alone before, and bounded the build); none
// below 4 threads (the driver copies, as on a machine with no cores to spare).
unsigned copy_threads(unsigned threads);

// Waits for the copies into `batch`, adding the seconds waited to `waited`.
void wait_for_copies(HostBatch& batch, double& waited);

// A target whose bases may still be copied after add() returned: the copies
// keep the sequence alive.
struct SharedTarget {
  sketch::target_id_t target = 0;
  std::uint64_t windows = 0;
  std::shared_ptr<const std::string> sequence;

  explicit SharedTarget(TargetSequence t)
      : target(t.target),
        windows(t.windows),
        sequence(std::make_shared<const std::string>(std::move(t.sequence))) {}
};

// Appends windows [w0, ...) of `target` to `batch`, cut at window boundaries
// (each piece carries the bases its windows' sketches read:
// sketch::window_bases, their own and their context), the bases copied by
// `copier` (counted in batch.copies). Returns the first window not packed: w0
// when the batch is full (submit it, pack the rest into an empty one; an
// empty batch takes at least one window: check_batch_size).
std::uint64_t pack_windows(HostBatch& batch, const SharedTarget& target, std::uint64_t w0,
                           const sketch::SketchParams& params, host::CopyPool& copier);

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
