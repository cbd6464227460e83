// The GPU PartHitCollector behind make_gpu_hit_collector (gpu_query.hpp).
// One stream on the layout's first GPU; a batch's features go to the GPU in
// chunks (bounding the per-feature buffers), are looked up in the part by
// kernels/part_lookup.hpp, and their locations come back in pieces of a
// bounded buffer, appended to the batch's BatchHits (each feature's list
// where its list_start says).
#include <algorithm>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>

#include "kernels/part_lookup.hpp"
#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/cuda/error.hpp"
#include "metawarp/cuda/grow.hpp"
#include "metawarp/cuda/pinned_buffer.hpp"
#include "metawarp/cuda/stream.hpp"
#include "metawarp/host/clock.hpp"
#include "pipeline/gpu/device_database.hpp"
#include "pipeline/gpu/selected_gpu.hpp"
#include "pipeline/query/gpu_query.hpp"

namespace metawarp::pipeline {
namespace {

using cuda::grow_to;

// Features per chunk: sizes the per-feature device buffers (ranges 12 bytes,
// counts and positions 8 each, the feature 4).
constexpr std::uint64_t max_chunk_features = std::uint64_t(1) << 22;
// Hits gathered on the device at once (8 bytes each), unless one feature's
// list is longer.
constexpr std::uint64_t max_gathered_hits = std::uint64_t(1) << 24;

constexpr const char* collecting = "looking the reads' features up in a part on the GPU";

class GpuCollector final : public GpuHitCollector {
 public:
  GpuCollector(std::span<const db::Target> targets, const ShardLayout& layout)
      : devices_(gpu::open_gpus(layout)),  // first: the stream and buffers live on devices[0]
        layout_(layout),
        window_base_(gpu::window_bases(targets)) {}
  ~GpuCollector() override {
    devices_.front().select();
    cudaStreamSynchronize(stream_);  // buffers must outlive work still queued
  }

  void use_part(const db::FeatureIndex& part, const db::IndexPart& where) override {
    host::Stopwatch clock;
    devices_.front().select();
    cuda::check(cudaStreamSynchronize(stream_), collecting);
    index_.reset();  // one part on the GPUs at a time
    try {
      index_.emplace(gpu::upload_index(part, window_base_, layout_));
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(std::string("a part of the database: ") + e.what() +
                               ", or smaller parts (more --partitions, a lower --max-memory; "
                               "with --mpi, more ranks)");
    }
    devices_.front().select();
    range_ = where.range;
    stats_.parts_uploaded += 1;
    stats_.largest_part_bytes = std::max(stats_.largest_part_bytes, index_->bytes());
    stats_.upload_seconds += clock.lap();
  }

  void collect(std::span<const SketchedBatch> batches, std::span<BatchHits> out) override {
    if (!index_) throw std::logic_error("GpuHitCollector: collect() before use_part()");
    if (out.size() != batches.size())
      throw std::invalid_argument("GpuHitCollector: one BatchHits per batch");
    devices_.front().select();  // the CUDA device is per thread
    for (std::size_t b = 0; b < batches.size(); ++b) collect_batch(batches[b], out[b]);
  }

  GpuPartStats stats() const override { return stats_; }

 private:
  void collect_batch(const SketchedBatch& batch, BatchHits& hits) {
    const std::uint64_t n = batch.features.size();
    for (std::uint64_t first = 0; first < n; first += max_chunk_features) {
      const std::uint64_t m = std::min(max_chunk_features, n - first);
      const std::uint64_t base = hits.locations.size();
      const std::uint64_t* positions = lookup(batch.features.data() + first, m);
      // Features outside the part (none of their hits here) keep what an
      // earlier part set.
      for (std::uint64_t i = 0; i < m; ++i)
        if (positions[i + 1] != positions[i]) {
          hits.list_start[first + i] = base + positions[i];
          hits.list_sizes[first + i] = std::uint32_t(positions[i + 1] - positions[i]);
        }
      hits.locations.resize(base + positions[m]);
      gather(positions, m, hits.locations.data() + base);
    }
    stats_.features += n;
  }

  // Uploads `m` features, looks them up and counts their hits; returns the
  // positions of their hits (m + 1, on the host; the last: the total).
  const std::uint64_t* lookup(const sketch::feature_t* features, std::uint64_t m) {
    host::Stopwatch clock;
    grow_to(host_features_, m);
    std::memcpy(host_features_.data(), features, m * sizeof(sketch::feature_t));
    grow_to(features_, m);
    grow_to(ranges_, m);
    grow_to(counts_, m + 1);
    grow_to(positions_, m + 1);
    grow_to(host_positions_, m + 1);
    features_.copy_from_host(host_features_.data(), m, stream_);
    kernels::count_part_hits(index_->view(0), range_, features_.data(), m, ranges_.data(),
                             counts_.data(), positions_.data(), scratch_, stream_);
    cuda::check(cudaStreamSynchronize(stream_), collecting);
    stats_.lookup_seconds += clock.lap();
    positions_.copy_to_host(host_positions_.data(), m + 1, stream_);
    cuda::check(cudaStreamSynchronize(stream_), collecting);
    stats_.download_seconds += clock.lap();
    return host_positions_.data();
  }

  // The locations of the `m` features just looked up into `out`, in pieces
  // of at most max_gathered_hits (a longer list is a piece of its own).
  void gather(const std::uint64_t* positions, std::uint64_t m, sketch::Location* out) {
    host::Stopwatch clock;
    for (std::uint64_t a = 0; a < m;) {
      std::uint64_t b = std::uint64_t(
          std::upper_bound(positions + a + 1, positions + m + 1, positions[a] + max_gathered_hits) -
          positions - 1);
      if (b == a) b = a + 1;
      const std::uint64_t piece = positions[b] - positions[a];
      if (piece > 0) {
        grow_to(hits_, piece);
        kernels::gather_part_hits(index_->view(0), ranges_.data(), a, b, positions_.data(),
                                  hits_.data(), stream_);
        cuda::check(cudaStreamSynchronize(stream_), collecting);
        stats_.lookup_seconds += clock.lap();
        hits_.copy_to_host(out + positions[a], piece, stream_);
        cuda::check(cudaStreamSynchronize(stream_), collecting);
        stats_.download_seconds += clock.lap();
        stats_.hits += piece;
      }
      a = b;
    }
  }

  std::vector<gpu::SelectedGpu> devices_;  // first: everything below lives on devices[0]
  ShardLayout layout_;
  std::vector<std::uint32_t> window_base_;
  cuda::stream stream_;
  kernels::CubScratch scratch_;
  cuda::pinned_buffer<sketch::feature_t> host_features_;
  cuda::pinned_buffer<std::uint64_t> host_positions_;
  cuda::device_buffer<sketch::feature_t> features_;
  cuda::device_buffer<kernels::ListRange> ranges_;
  cuda::device_buffer<std::uint64_t> counts_;
  cuda::device_buffer<std::uint64_t> positions_;
  cuda::device_buffer<sketch::Location> hits_;
  std::optional<gpu::DeviceDatabase> index_;  // the part in use
  index::FeatureRange range_;
  GpuPartStats stats_;
};

}  // namespace

std::unique_ptr<GpuHitCollector> make_gpu_hit_collector(std::span<const db::Target> targets,
                                                        const ShardLayout& layout) {
  return std::make_unique<GpuCollector>(targets, layout);
}

}  // namespace metawarp::pipeline
