#include "pipeline/gpu/kept_chunks.hpp"

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <string>

#include "kernels/kept_hits.hpp"
#include "metawarp/cuda/error.hpp"
#include "metawarp/cuda/grow.hpp"
#include "metawarp/cuda/pooled_buffer.hpp"
#include "metawarp/cuda/stream.hpp"
#include "metawarp/host/clock.hpp"
#include "metawarp/host/parallel_for.hpp"

namespace metawarp::pipeline::gpu {

using cuda::grow_to;
using cuda::make_pooled;
using cuda::pooled_buffer;
using kernels::ListRange;
using kernels::QuerySequence;

// A chunk's reads and what the parts left of their lists, on the GPU: from
// the device's pool, in stream order (a chunk is made, looked up and freed
// for every walk; cudaMalloc and cudaFree would wait for the whole device).
// Each buffer is freed on the stream it was made on, after the work on every
// lane that used it has ended (each step ends with its streams synchronised).
struct KeptChunk {
  std::size_t batch = 0, first = 0, count = 0;  // reads [first, first + count) of the batch
  std::uint64_t bases = 0, windows = 0;
  std::vector<QuerySequence> sequences;  // as pack_reads made them (finish reads them)
  std::vector<std::uint32_t> read_windows;
  pooled_buffer<char> device_bases;
  pooled_buffer<QuerySequence> device_sequences;
  pooled_buffer<ListRange> kept;              // windows * sketch size: {segment, at, count}
  pooled_buffer<std::uint64_t> window_hits;   // windows + 1, summed over the parts (last 0)
  pooled_buffer<std::uint32_t> positions;     // the matched-bases rule: each slot's read position
  pooled_buffer<std::uint8_t> window_features;  // the evidence from the device
  std::vector<pooled_buffer<std::uint32_t>> segments;  // the lists each part left

  std::uint64_t bytes() const {
    std::uint64_t sum = device_bases.size_bytes() + device_sequences.size_bytes() +
                        kept.size_bytes() + window_hits.size_bytes() + positions.size_bytes() +
                        window_features.size_bytes();
    for (const auto& segment : segments) sum += segment.size_bytes();
    return sum;
  }
};

// A stream and the scratch of one chunk at a time.
struct KeptLane {
  cuda::stream stream;
  cuda::pinned_buffer<char> host_bases;
  cuda::pinned_buffer<QuerySequence> host_sequences;
  cuda::pinned_buffer<std::uint64_t> host_total{1};
  cuda::device_buffer<ListRange> ranges;
  cuda::device_buffer<std::uint64_t> window_hits;
  cuda::device_buffer<std::uint64_t> window_offsets;
  cuda::device_buffer<std::uint64_t> read_offsets;
  // A chunk's segments as the shards of an index (kernels/kept_hits.hpp):
  // their views (locations only) and first features (none is looked up).
  cuda::pinned_buffer<kernels::ShardView> host_segments;
  cuda::device_buffer<kernels::ShardView> segments;
  cuda::device_buffer<std::uint32_t> segment_begins;
  kernels::CubScratch scratch;
  cuda::event start, counted;
  ChunkDecider decider;
  GpuQueryStats stats;  // added to the chunks' at the end of each step

  ~KeptLane() { cudaStreamSynchronize(stream); }  // buffers must outlive work still queued

  // The chunk's view with this lane's scratch; `ranges`: the lane's (a part's
  // lookup) or the chunk's kept ones (the decision).
  kernels::QueryChunkView view(KeptChunk& chunk, ListRange* chunk_ranges,
                               std::uint64_t* chunk_window_hits) {
    return kernels::QueryChunkView{chunk.device_bases.data(),
                                   chunk.device_sequences.data(),
                                   std::uint32_t(chunk.count),
                                   chunk.windows,
                                   chunk_ranges,
                                   chunk_window_hits,
                                   window_offsets.data(),
                                   read_offsets.data(),
                                   chunk.window_features.empty() ? nullptr
                                                                 : chunk.window_features.data(),
                                   chunk.positions.empty() ? nullptr : chunk.positions.data()};
  }

  // The chunk's hit count (window_offsets' last entry), once the stream is there.
  std::uint64_t total(std::uint64_t windows) {
    cuda::check(cudaMemcpyAsync(host_total.data(), window_offsets.data() + windows,
                                sizeof(std::uint64_t), cudaMemcpyDeviceToHost, stream),
                "downloading a chunk's hit count");
    counted.record(stream);
    counted.synchronize();
    return host_total[0];
  }
};

KeptChunks::KeptChunks(const SelectedGpu& device, std::span<const std::uint32_t> window_base,
                       std::uint64_t chunk_bases, unsigned lanes)
    : device_(device),
      window_base_(window_base.begin(), window_base.end()),
      chunk_bases_(chunk_bases) {
  device_.select();
  for (unsigned i = 0; i < std::max(1u, lanes); ++i) lanes_.push_back(std::make_unique<KeptLane>());
  cuda::stream stream;
  window_base_device_ = cuda::copy_to_device(std::span<const std::uint32_t>(window_base_), stream);
  cuda::check(cudaStreamSynchronize(stream), "uploading the window bases");
}

KeptChunks::~KeptChunks() {
  device_.select();
  for (const auto& lane : lanes_) cudaStreamSynchronize(lane->stream);
  chunks_.clear();  // freed on the lanes' streams: before they go
  lanes_.clear();
  cuda::trim_device_pools();  // the chunks' memory back to the driver
}

// job(chunk, lane) for every chunk, a lane per thread. A failure (the GPU's
// memory, most likely: the walk's reads and hits beside two parts) says what
// was held and what lowers it.
template <class Job>
void KeptChunks::on_lanes(Job job) {
  try {
    host::parallel_for(chunks_.size(), unsigned(lanes_.size()), [&](std::size_t c, unsigned w) {
      device_.select();  // the CUDA device is per thread
      job(*chunks_[c], *lanes_[w]);
    });
  } catch (const std::runtime_error& e) {
    throw std::runtime_error("keeping the hits of " + std::to_string(chunks_.size()) +
                             " chunks of reads on GPU " + std::to_string(device_.device()) + " (" +
                             std::to_string(held_bytes_ >> 20) + " MiB held): " + e.what() +
                             "; lower --hit-memory (the reads in flight) or give more "
                             "--partitions");
  }
}

void KeptChunks::start(const Classifier& classifier,
                       std::span<const std::span<const ReadView>> batches) {
  device_.select();
  chunks_.clear();
  classifier_ = &classifier;
  reads_.assign(batches.begin(), batches.end());
  const bool match = classifier.match_rule();
  const bool taxa = taxa_from_device(classifier.options());
  if (taxa && !taxa_) taxa_.emplace(std::move(upload_taxa({device_}, classifier.taxa()).front()));
  for (std::size_t b = 0; b < batches.size(); ++b)
    for (std::size_t first = 0; first < batches[b].size();) {
      auto chunk = std::make_unique<KeptChunk>();
      chunk->batch = b;
      chunk->first = first;
      chunk->count = chunk_end(batches[b].subspan(first), chunk_bases_, chunk->bases);
      first += chunk->count;
      chunks_.push_back(std::move(chunk));
    }
  const std::uint32_t s = classifier.sketch_params().sketch_size;
  std::mutex mutex;  // guards held_bytes_ and stats_
  held_bytes_ = 0;
  on_lanes([&](KeptChunk& chunk, KeptLane& lane) {
    host::Stopwatch clock;
    const std::span<const ReadView> reads = batches[chunk.batch].subspan(chunk.first, chunk.count);
    const std::uint64_t sequences = 2 * chunk.count + 1;
    grow_to(lane.host_bases, chunk.bases);
    grow_to(lane.host_sequences, sequences);
    chunk.windows = pack_reads(reads, classifier.sketch_params(), lane.host_bases.data(),
                               lane.host_sequences.data(), chunk.read_windows);
    chunk.sequences.assign(lane.host_sequences.data(), lane.host_sequences.data() + sequences);
    const double packed = clock.lap();
    const cudaStream_t stream = lane.stream;
    lane.start.record(stream);
    chunk.device_bases = make_pooled<char>(chunk.bases, stream);
    chunk.device_sequences = make_pooled<QuerySequence>(sequences, stream);
    chunk.kept = make_pooled<ListRange>(chunk.windows * s, stream);
    chunk.window_hits = make_pooled<std::uint64_t>(chunk.windows + 1, stream);
    if (match) chunk.positions = make_pooled<std::uint32_t>(chunk.windows * s, stream);
    if (taxa) chunk.window_features = make_pooled<std::uint8_t>(chunk.windows, stream);
    chunk.device_bases.copy_from_host(lane.host_bases.data(), chunk.bases, lane.stream);
    chunk.device_sequences.copy_from_host(lane.host_sequences.data(), sequences, lane.stream);
    chunk.kept.fill_bytes(0, lane.stream);  // no list: {0, 0, 0}
    chunk.window_hits.fill_bytes(0, lane.stream);
    lane.counted.record(lane.stream);
    // The pinned buffers are the next chunk's.
    cuda::check(cudaStreamSynchronize(lane.stream), "sending the reads to the GPU");
    std::lock_guard lock(mutex);
    held_bytes_ += chunk.bytes();
    stats_.pack_seconds += packed;
    stats_.copy_in_seconds += seconds_between(lane.start, lane.counted);
  });
}

void KeptChunks::collect(const kernels::DeviceIndexView& part) {
  const sketch::SketchParams& p = classifier_->sketch_params();
  std::mutex mutex;  // guards held_bytes_ and stats_
  on_lanes([&](KeptChunk& chunk, KeptLane& lane) {
    const std::uint64_t slots = chunk.windows * p.sketch_size;
    grow_to(lane.ranges, slots);
    grow_to(lane.window_hits, chunk.windows + 1);
    grow_to(lane.window_offsets, chunk.windows + 1);
    grow_to(lane.read_offsets, chunk.count + 1);
    const kernels::QueryChunkView view = lane.view(chunk, lane.ranges.data(), lane.window_hits.data());
    lane.start.record(lane.stream);
    kernels::count_hits(view, p, part, lane.scratch, lane.stream);
    const std::uint64_t total = lane.total(chunk.windows);
    if (total == 0) {
      std::lock_guard lock(mutex);
      stats_.sketch_lookup_seconds += seconds_between(lane.start, lane.counted);
      return;
    }
    if (total > 0xffffffffull)  // a kept range's offset is 32 bits
      throw std::runtime_error("a chunk of " + std::to_string(chunk.count) + " reads has " +
                               std::to_string(total) +
                               " hits in one part of the database, more than 2^32 (a kept "
                               "range's offset): give more --partitions");
    chunk.segments.push_back(make_pooled<std::uint32_t>(total, lane.stream));
    kernels::keep_part_lists(view, p.sketch_size, part, std::uint32_t(chunk.segments.size() - 1),
                             chunk.segments.back().data(), chunk.kept.data(),
                             chunk.window_hits.data(), lane.stream);
    // The lane's ranges are the next chunk's: the stream orders them.
    std::lock_guard lock(mutex);
    held_bytes_ += chunk.segments.back().size_bytes();
    stats_.hits += total;
    stats_.sketch_lookup_seconds += seconds_between(lane.start, lane.counted);
  });
  device_.select();
  for (const auto& lane : lanes_)
    cuda::check(cudaStreamSynchronize(lane->stream), "keeping the hits of a part");
}

void KeptChunks::finish(std::span<const std::span<ReadResult>> results) {
  const Classifier& classifier = *classifier_;
  std::mutex mutex;  // guards stats_
  on_lanes([&](KeptChunk& chunk, KeptLane& lane) {
    grow_to(lane.window_offsets, chunk.windows + 1);
    grow_to(lane.read_offsets, chunk.count + 1);
    const kernels::QueryChunkView view = lane.view(chunk, chunk.kept.data(), chunk.window_hits.data());
    // The segments as the shards of an index: the kept ranges name them (one
    // at least: a kernel takes a slot's shard before it sees its empty list).
    const std::size_t count = std::max<std::size_t>(1, chunk.segments.size());
    grow_to(lane.host_segments, count);
    grow_to(lane.segments, count);
    if (lane.segment_begins.size() < count) {
      grow_to(lane.segment_begins, count);
      lane.segment_begins.fill_bytes(0, lane.stream);
    }
    for (std::size_t i = 0; i < count; ++i) {
      kernels::ShardView& shard = lane.host_segments[i];
      shard = kernels::ShardView{};
      shard.reserved_lists[0] = shard.reserved_lists[1] = kernels::no_list;
      shard.locations = i < chunk.segments.size() ? chunk.segments[i].data() : nullptr;
    }
    lane.start.record(lane.stream);
    lane.segments.copy_from_host(lane.host_segments.data(), count, lane.stream);
    const kernels::DeviceIndexView index{lane.segments.data(), lane.segment_begins.data(),
                                         std::uint32_t(count), window_base_device_.data(),
                                         std::uint32_t(window_base_.size() - 1)};
    kernels::place_hits(view, lane.scratch, lane.stream);
    const std::uint64_t total = lane.total(chunk.windows);  // the segment views are up: reusable
    lane.decider.decide(view, total, index, classifier,
                        taxa_ ? &*taxa_ : nullptr, lane.counted, lane.stream, lane.stats);
    host::Stopwatch clock;
    lane.decider.finish(
        reads_[chunk.batch].subspan(chunk.first, chunk.count),
        results[chunk.batch].subspan(chunk.first, chunk.count),
        classifier, chunk.sequences.data(), chunk.read_windows);
    const double assigned = clock.lap();
    chunk = KeptChunk{};  // its device memory freed as soon as it is decided
    std::lock_guard lock(mutex);
    stats_.chunks += 1;
    stats_.assign_seconds += assigned;
  });
  for (const auto& lane : lanes_) {
    stats_.gather_sort_seconds += lane->stats.gather_sort_seconds;
    stats_.candidates_seconds += lane->stats.candidates_seconds;
    stats_.copy_out_seconds += lane->stats.copy_out_seconds;
    lane->stats = GpuQueryStats();
  }
  device_.select();
  chunks_.clear();
  reads_.clear();
  held_bytes_ = 0;
}

}  // namespace metawarp::pipeline::gpu
