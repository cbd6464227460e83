// The GPU PartHitCollector behind make_gpu_hit_collector (gpu_query.hpp).
// One stream on the layout's first GPU; a batch's features go to the GPU in
// chunks (bounding the per-feature buffers), are looked up in the part by
// kernels/part_lookup.hpp, and their locations come back in pieces of a
// bounded buffer, appended to the batch's BatchHits (each feature's list
// where its list_start says).
//
// Or, as a PartReadDecider, the hits stay on the GPU: the walk's reads go up
// once and are decided there (kept_chunks.hpp), on the same part slots.
//
// Parts on the GPU: two slots. A part still in a slot is used again without
// an upload (with two parts, every walk after the first two uploads); a part
// used goes into the slot not in use, so the one in use stays while the GPU
// holds both. prefetch() uploads the walk's next part into the slot not in
// use on a thread of its own (the upload's own streams) while collect()
// looks in the current one, where one GPU's memory holds both and the
// collector's buffers; else the part goes up when used, one at a time.
#include <algorithm>
#include <array>
#include <cstring>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>

#include "kernels/part_lookup.hpp"
#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/cuda/error.hpp"
#include "metawarp/cuda/grow.hpp"
#include "metawarp/cuda/memory_pool.hpp"
#include "metawarp/cuda/pinned_buffer.hpp"
#include "metawarp/cuda/stream.hpp"
#include "metawarp/host/background_task.hpp"
#include "metawarp/host/clock.hpp"
#include "pipeline/gpu/device_database.hpp"
#include "pipeline/gpu/kept_chunks.hpp"
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

// What the GPU keeps free beside a prefetched part: the collector's own
// buffers (a chunk's per-feature arrays, 128 MiB; a piece of hits, 128 MiB;
// CUB's scratch) grow while the upload runs.
constexpr std::uint64_t prefetch_reserve = std::uint64_t(1) << 30;

bool same_part(const db::IndexPart& a, const db::IndexPart& b) {
  return a.first_feature == b.first_feature && a.last_feature == b.last_feature &&
         a.first_location == b.first_location && a.last_location == b.last_location;
}

// A part on the GPU, or none.
struct PartSlot {
  db::IndexPart where;
  std::optional<gpu::DeviceDatabase> index;
  bool holds(const db::IndexPart& part) const { return index && same_part(where, part); }
};

// Lanes of the kept chunks: they overlap one another's copies, kernels and
// the host's part of the decisions (as the resident engine's 8 lanes).
constexpr unsigned kept_lanes = 8;

class GpuCollector final : public GpuHitCollector, public PartReadDecider {
 public:
  GpuCollector(std::span<const db::Target> targets, const ShardLayout& layout)
      : devices_(gpu::open_gpus(layout)),  // first: the stream and buffers live on devices[0]
        layout_(layout),
        window_base_(gpu::window_bases(targets)) {}
  ~GpuCollector() override {
    finish_prefetch();
    devices_.front().select();
    cudaStreamSynchronize(stream_);  // buffers must outlive work still queued
  }

  void use_part(const db::FeatureIndex& part, const db::IndexPart& where) override {
    host::Stopwatch clock;
    finish_prefetch();
    devices_.front().select();
    cuda::check(cudaStreamSynchronize(stream_), collecting);
    range_ = where.range;
    for (std::size_t s = 0; s < slots_.size(); ++s)
      if (slots_[s].holds(where)) {  // still on the GPU (kept, or prefetched)
        current_ = s;
        stats_.parts_reused += 1;
        stats_.upload_seconds += clock.lap();
        return;
      }
    // Into the slot not in use: the part in use may be the next one wanted
    // again (a walk's last part is the next walk's first), so it goes only
    // when the GPU cannot hold both.
    const std::size_t target = slots_[current_].index ? 1 - current_ : current_;
    slots_[target].index.reset();
    try {
      upload(part, where, slots_[target]);
    } catch (const std::runtime_error&) {
      slots_[1 - target].index.reset();  // one part on the GPU at a time, then
      cuda::trim_device_pools();  // and what the pool keeps of the reads' chunks freed
      try {
        upload(part, where, slots_[target]);
      } catch (const std::runtime_error& e) {
        throw std::runtime_error(std::string("a part of the database: ") + e.what() +
                                 ", or smaller parts (more --partitions, a lower --max-memory; "
                                 "with --mpi, more ranks)");
      }
    }
    devices_.front().select();
    current_ = target;
    stats_.parts_uploaded += 1;
    stats_.upload_seconds += clock.lap();
  }

  void prefetch(const db::FeatureIndex& part, const db::IndexPart& where) override {
    if (prefetching_) return;  // one upload in flight at a time
    for (const PartSlot& slot : slots_)
      if (slot.holds(where)) return;
    const std::size_t target = 1 - current_;
    devices_.front().select();
    slots_[target].index.reset();  // its part is not in use: the wanted one takes its place
    // Both parts on the GPU, and the collector's buffers beside them; else
    // the part goes up when used, after the current one is freed.
    std::size_t free_bytes = 0, total_bytes = 0;
    cuda::check(cudaMemGetInfo(&free_bytes, &total_bytes), "querying free GPU memory");
    const std::uint64_t needed =
        gpu_shard_bytes(part.feature_count(), part.location_count()) +
        part.feature_count() * sizeof(std::uint64_t) + prefetch_reserve;
    // (Over several GPUs the memory of each would be weighed: not done, the
    // parts go up when used.)
    if (layout_.devices.size() != 1 || needed > free_bytes) {
      stats_.prefetches_skipped += 1;
      return;
    }
    PartSlot& slot = slots_[target];
    prefetching_ = true;
    prefetch_.start([this, &part, where, &slot] {
      host::Stopwatch clock;
      devices_.front().select();  // the CUDA device is per thread
      upload(part, where, slot);
      prefetch_upload_seconds_ = clock.lap();
    });
  }

  void collect(std::span<const SketchedBatch> batches, std::span<BatchHits> out) override {
    if (!slots_[current_].index)
      throw std::logic_error("GpuHitCollector: collect() before use_part()");
    if (out.size() != batches.size())
      throw std::invalid_argument("GpuHitCollector: one BatchHits per batch");
    devices_.front().select();  // the CUDA device is per thread
    for (std::size_t b = 0; b < batches.size(); ++b) collect_batch(batches[b], out[b]);
    // The prefetched part's host copy is valid until now (PartHitCollector).
    finish_prefetch();
  }

  GpuPartStats stats() const override { return stats_; }

  PartReadDecider* read_decider(const ClassifierOptions& options) override {
    return options.found_features ? nullptr : this;  // the features' hashes are the host's
  }

  void start(const Classifier& classifier,
             std::span<const std::span<const ReadView>> batches) override {
    host::Stopwatch clock;
    if (!kept_)
      kept_.emplace(devices_.front(), window_base_, GpuQueryOptions{}.chunk_bases, kept_lanes);
    kept_->start(classifier, batches);
    stats_.decide_seconds += clock.lap();
  }

  void collect() override {
    if (!slots_[current_].index)
      throw std::logic_error("GpuHitCollector: collect() before use_part()");
    if (!kept_) throw std::logic_error("GpuHitCollector: collect() before start()");
    host::Stopwatch clock;
    const std::uint64_t hits_before = kept_->stats().hits;
    kept_->collect(index().view(0));
    stats_.kept_hits += kept_->stats().hits - hits_before;
    stats_.lookup_seconds += clock.lap();
    // The prefetched part's host copy is valid until now (PartHitCollector).
    finish_prefetch();
  }

  void finish(std::span<const std::span<ReadResult>> results) override {
    if (!kept_) throw std::logic_error("GpuHitCollector: finish() before start()");
    host::Stopwatch clock;
    kept_->finish(results);
    stats_.decide_seconds += clock.lap();
    stats_.kept_walks += 1;
  }

  void take_kept(KeptLists& out) override {
    if (!kept_) throw std::logic_error("GpuHitCollector: take_kept() before start()");
    host::Stopwatch clock;
    kept_->take_kept(out);
    stats_.kept_exchange_seconds += clock.lap();
  }

  void add_kept(const KeptLists& lists) override {
    if (!kept_) throw std::logic_error("GpuHitCollector: add_kept() before start()");
    host::Stopwatch clock;
    const std::uint64_t hits_before = kept_->stats().hits;
    kept_->add_kept(lists);
    stats_.kept_hits += kept_->stats().hits - hits_before;
    stats_.kept_exchange_seconds += clock.lap();
  }

  std::uint64_t held_bytes() const override { return kept_ ? kept_->held_bytes() : 0; }

 private:
  const gpu::DeviceDatabase& index() const { return *slots_[current_].index; }

  // `part` into `slot` (empty), its lookups built; returns when done.
  void upload(const db::FeatureIndex& part, const db::IndexPart& where, PartSlot& slot) {
    slot.index.emplace(gpu::upload_index(part, window_base_, layout_));
    slot.where = where;
    stats_.largest_part_bytes = std::max(stats_.largest_part_bytes, slot.index->bytes());
  }

  // Waits for the upload prefetch() started. One that failed (the GPU's
  // memory taken meanwhile) leaves its slot empty: the part goes up when used.
  void finish_prefetch() {
    if (!prefetching_) return;
    prefetching_ = false;
    try {
      prefetch_.wait();
      stats_.prefetch_seconds += prefetch_upload_seconds_;
      stats_.parts_uploaded += 1;
      stats_.parts_prefetched += 1;
    } catch (const std::exception&) {
      slots_[1 - current_].index.reset();
      stats_.prefetches_skipped += 1;
    }
    devices_.front().select();
  }

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
    kernels::count_part_hits(index().view(0), range_, features_.data(), m, ranges_.data(),
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
        kernels::gather_part_hits(index().view(0), ranges_.data(), a, b, positions_.data(),
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
  std::array<PartSlot, 2> slots_;
  std::optional<gpu::KeptChunks> kept_;  // as a PartReadDecider, once started
  std::size_t current_ = 0;  // the slot collect() looks in
  index::FeatureRange range_;
  GpuPartStats stats_;  // the prefetch's thread writes largest_part_bytes, joined before read
  // prefetch()'s upload on a thread of its own, and its seconds (written by
  // that thread, read once it is joined).
  host::BackgroundTask prefetch_;
  bool prefetching_ = false;
  double prefetch_upload_seconds_ = 0;
};

}  // namespace

std::unique_ptr<GpuHitCollector> make_gpu_hit_collector(std::span<const db::Target> targets,
                                                        const ShardLayout& layout) {
  return std::make_unique<GpuCollector>(targets, layout);
}

}  // namespace metawarp::pipeline
