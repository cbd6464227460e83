#pragma once
// The streamed query's reads on one GPU while the parts of the database pass
// (the GPU collector's PartReadDecider, gpu_hit_collector.cpp): a walk's reads
// go up once, in chunks (their bases, sequences and, per slot, the range of
// its list kept so far); each part looks every chunk up (kernels::count_hits)
// and leaves the lists it holds in a segment of the chunk
// (kernels::keep_part_lists); after the last part each chunk is decided by
// the resident engine's ChunkDecider over its segments, so every read gets the
// resident engine's result. Lanes (a stream and its scratch each) take the
// chunks on threads of their own, overlapping copies, kernels and the host's
// Classifier::finish.
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "kernels/device_index.hpp"
#include "metawarp/cuda/device_buffer.hpp"
#include "pipeline/gpu/chunk_decider.hpp"
#include "pipeline/gpu/selected_gpu.hpp"
#include "pipeline/query/classifier.hpp"
#include "pipeline/query/part_hits.hpp"

namespace metawarp::pipeline::gpu {

struct KeptChunk;
struct KeptLane;

class KeptChunks {
 public:
  // On `device`, for a database with these window bases (window_bases()):
  // chunks of at most `chunk_bases` bases, `lanes` of them at once.
  KeptChunks(const SelectedGpu& device, std::span<const std::uint32_t> window_base,
             std::uint64_t chunk_bases, unsigned lanes);
  ~KeptChunks();

  // The walk's reads (replacing the last walk's): each batch's cut into
  // chunks, which go to the GPU in the first step after (a lane sends one
  // while another looks its own up). `classifier` decides them and must
  // outlive finish(); the reads must stay valid until then too.
  void start(const Classifier& classifier, std::span<const std::span<const ReadView>> batches);
  // Every chunk looked up in `part` (a part's index on this GPU), its lists kept.
  void collect(const kernels::DeviceIndexView& part);
  // results[b][i] for read i of batch b; frees the chunks.
  void finish(std::span<const std::span<ReadResult>> results);
  // After one collect(): its lists, chunk by chunk, into `out`; frees the
  // chunks undecided (PartReadDecider::take_kept).
  void take_kept(KeptLists& out);
  // Lists taken (take_kept) from the same walk's reads in another part: each
  // chunk's a segment of its own, as collect() on that part would keep them.
  void add_kept(const KeptLists& lists);

  // Device bytes the walk's chunks hold (their reads and kept lists).
  std::uint64_t held_bytes() const { return held_bytes_; }
  // Summed over the walks.
  const GpuQueryStats& stats() const { return stats_; }

 private:
  template <class Job>
  void on_lanes(Job job);
  void upload(KeptChunk& chunk, KeptLane& lane, std::mutex& mutex);

  const SelectedGpu& device_;
  std::vector<std::uint32_t> window_base_;
  cuda::device_buffer<std::uint32_t> window_base_device_;  // read by every lane
  std::uint64_t chunk_bases_;
  std::vector<std::unique_ptr<KeptLane>> lanes_;
  std::vector<std::unique_ptr<KeptChunk>> chunks_;
  std::vector<std::span<const ReadView>> reads_;  // the walk's, by batch
  const Classifier* classifier_ = nullptr;
  std::optional<DeviceTaxa> taxa_;  // once a classifier needs the evidence from the device
  std::uint64_t held_bytes_ = 0;
  GpuQueryStats stats_;
};

}  // namespace metawarp::pipeline::gpu
