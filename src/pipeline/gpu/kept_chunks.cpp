#include "pipeline/gpu/kept_chunks.hpp"

#include <algorithm>
#include <cstring>
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
  std::size_t index = 0;  // in the walk
  bool uploaded = false;  // its reads on the GPU (KeptChunks::upload)
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
  // take_kept's: the slots with a list, and their lengths, packed.
  pooled_buffer<std::uint32_t> sent_mask;
  pooled_buffer<std::uint8_t> sent_lengths;

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

  // Host memory of another process's lists to and from the device, through
  // pinned pieces of the lane's: added straight from pageable memory, 7.07
  // GB of lists took 1.66-1.72 s over 8 lanes (2 x H100); through the pieces
  // 2.86 GB take 0.33-0.34 s, copies, kernels and all (docs/benchmarks.md).
  cuda::pinned_buffer<char> staging;
  static constexpr std::size_t staging_bytes = std::size_t(8) << 20;

  template <class T>
  void upload_staged(T* device, const T* host, std::size_t count) {
    copy_staged(device, host, count * sizeof(T), cudaMemcpyHostToDevice);
  }
  template <class T>
  void download_staged(T* host, const T* device, std::size_t count) {
    copy_staged(host, device, count * sizeof(T), cudaMemcpyDeviceToHost);
  }
  void copy_staged(void* to, const void* from, std::size_t bytes, cudaMemcpyKind kind) {
    grow_to(staging, staging_bytes);
    const bool up = kind == cudaMemcpyHostToDevice;
    for (std::size_t at = 0; at < bytes; at += staging_bytes) {
      const std::size_t n = std::min(staging_bytes, bytes - at);
      char* target = static_cast<char*>(to) + at;
      const char* source = static_cast<const char*>(from) + at;
      if (up) std::memcpy(staging.data(), source, n);
      cuda::check(cudaMemcpyAsync(up ? target : staging.data(), up ? staging.data() : source, n,
                                  kind, stream),
                  "copying kept lists between the host and the GPU");
      cuda::check(cudaStreamSynchronize(stream), "copying kept lists between the host and the GPU");
      if (!up) std::memcpy(target, staging.data(), n);
    }
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
  if (taxa_from_device(classifier.options()) && !taxa_)
    taxa_.emplace(std::move(upload_taxa({device_}, classifier.taxa()).front()));
  for (std::size_t b = 0; b < batches.size(); ++b)
    for (std::size_t first = 0; first < batches[b].size();) {
      auto chunk = std::make_unique<KeptChunk>();
      chunk->index = chunks_.size();
      chunk->batch = b;
      chunk->first = first;
      chunk->count = chunk_end(batches[b].subspan(first), chunk_bases_, chunk->bases);
      first += chunk->count;
      chunks_.push_back(std::move(chunk));
    }
  held_bytes_ = 0;
}

// A chunk's reads to the GPU, on its first step after start(): so that a
// lane sends one chunk while another looks its chunk up.
void KeptChunks::upload(KeptChunk& chunk, KeptLane& lane, std::mutex& mutex) {
  if (chunk.uploaded) return;
  const Classifier& classifier = *classifier_;
  const std::uint32_t s = classifier.sketch_params().sketch_size;
  host::Stopwatch clock;
  const std::span<const ReadView> reads = reads_[chunk.batch].subspan(chunk.first, chunk.count);
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
  if (classifier.match_rule())
    chunk.positions = make_pooled<std::uint32_t>(chunk.windows * s, stream);
  if (taxa_from_device(classifier.options()))
    chunk.window_features = make_pooled<std::uint8_t>(chunk.windows, stream);
  chunk.device_bases.copy_from_host(lane.host_bases.data(), chunk.bases, lane.stream);
  chunk.device_sequences.copy_from_host(lane.host_sequences.data(), sequences, lane.stream);
  chunk.kept.fill_bytes(0, lane.stream);  // no list: {0, 0, 0}
  chunk.window_hits.fill_bytes(0, lane.stream);
  lane.counted.record(lane.stream);
  // The pinned buffers are the next chunk's.
  cuda::check(cudaStreamSynchronize(lane.stream), "sending the reads to the GPU");
  chunk.uploaded = true;
  std::lock_guard lock(mutex);
  held_bytes_ += chunk.bytes();
  stats_.pack_seconds += packed;
  stats_.copy_in_seconds += seconds_between(lane.start, lane.counted);
}

void KeptChunks::collect(const kernels::DeviceIndexView& part) {
  const sketch::SketchParams& p = classifier_->sketch_params();
  std::mutex mutex;  // guards held_bytes_ and stats_
  on_lanes([&](KeptChunk& chunk, KeptLane& lane) {
    upload(chunk, lane, mutex);
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

namespace {

// Where each chunk's mask words, lengths and lists lie in a KeptLists
// (c + 1 entries each: the last, the totals).
struct KeptListPlaces {
  std::vector<std::uint64_t> words, lists, hits;
};

KeptListPlaces places(std::span<const std::unique_ptr<KeptChunk>> chunks, const KeptLists& kept,
                      std::uint32_t sketch_size) {
  KeptListPlaces at;
  for (auto* v : {&at.words, &at.lists, &at.hits}) v->assign(chunks.size() + 1, 0);
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    at.words[c + 1] = at.words[c] + kernels::kept_mask_words(chunks[c]->windows * sketch_size);
    at.lists[c + 1] = at.lists[c] + kept.chunk_lists[c];
    at.hits[c + 1] = at.hits[c] + kept.chunk_hits[c];
  }
  return at;
}

}  // namespace

void KeptChunks::take_kept(KeptLists& out) {
  const std::uint32_t s = classifier_->sketch_params().sketch_size;
  out.chunk_hits.assign(chunks_.size(), 0);
  out.chunk_lists.assign(chunks_.size(), 0);
  for (std::size_t c = 0; c < chunks_.size(); ++c) {
    const KeptChunk& chunk = *chunks_[c];
    if (chunk.segments.size() > 1)
      throw std::logic_error("KeptChunks::take_kept: more than one part collected");
    out.chunk_hits[c] = chunk.segments.empty() ? 0 : chunk.segments.front().size();
  }
  // Each chunk's slots with a list, packed on the GPU (the count read back),
  // then everything downloaded to its place.
  std::mutex mutex;  // guards held_bytes_ and stats_
  on_lanes([&](KeptChunk& chunk, KeptLane& lane) {
    upload(chunk, lane, mutex);
    const std::uint64_t slots = chunk.windows * s, words = kernels::kept_mask_words(slots);
    grow_to(lane.window_hits, words + 1);
    grow_to(lane.window_offsets, words + 1);
    chunk.sent_mask = make_pooled<std::uint32_t>(words, lane.stream);
    chunk.sent_lengths = make_pooled<std::uint8_t>(slots, lane.stream);
    kernels::pack_kept_lengths(chunk.kept.data(), slots, chunk.sent_mask.data(),
                               chunk.sent_lengths.data(), lane.window_hits.data(),
                               lane.window_offsets.data(), lane.scratch, lane.stream);
    out.chunk_lists[chunk.index] = lane.total(words);
  });
  const KeptListPlaces at = places(chunks_, out, s);
  out.masks.resize(at.words.back());
  out.lengths.resize(at.lists.back());
  out.hits.resize(at.hits.back());
  on_lanes([&](KeptChunk& chunk, KeptLane& lane) {
    const std::size_t c = chunk.index;
    lane.download_staged(out.masks.data() + at.words[c], chunk.sent_mask.data(),
                         chunk.sent_mask.size());
    lane.download_staged(out.lengths.data() + at.lists[c], chunk.sent_lengths.data(),
                         out.chunk_lists[c]);
    if (!chunk.segments.empty())
      lane.download_staged(out.hits.data() + at.hits[c], chunk.segments.front().data(),
                           out.chunk_hits[c]);
    chunk = KeptChunk{};  // freed on its lanes' streams: nothing of it is decided here
  });
  device_.select();
  chunks_.clear();
  reads_.clear();
  held_bytes_ = 0;
}

void KeptChunks::add_kept(const KeptLists& lists) {
  const std::uint32_t s = classifier_->sketch_params().sketch_size;
  if (lists.chunk_hits.size() != chunks_.size() || lists.chunk_lists.size() != chunks_.size())
    throw std::invalid_argument("KeptChunks::add_kept: lists of " +
                                std::to_string(lists.chunk_hits.size()) + " chunks for " +
                                std::to_string(chunks_.size()));
  std::mutex mutex;  // guards held_bytes_ and stats_
  // Every chunk's windows known (places()): its reads sent.
  if (std::any_of(chunks_.begin(), chunks_.end(), [](const auto& c) { return !c->uploaded; }))
    on_lanes([&](KeptChunk& chunk, KeptLane& lane) { upload(chunk, lane, mutex); });
  const KeptListPlaces at = places(chunks_, lists, s);
  if (at.words.back() != lists.masks.size() || at.lists.back() != lists.lengths.size() ||
      at.hits.back() != lists.hits.size())
    throw std::invalid_argument("KeptChunks::add_kept: lists of other reads");
  on_lanes([&](KeptChunk& chunk, KeptLane& lane) {
    const std::size_t c = chunk.index;
    const std::uint64_t hits = lists.chunk_hits[c];
    if (hits == 0) return;
    if (hits > 0xffffffffull)  // a kept range's offset is 32 bits
      throw std::runtime_error("a chunk of " + std::to_string(chunk.count) + " reads has " +
                               std::to_string(hits) +
                               " hits in one part of the database, more than 2^32 (a kept "
                               "range's offset): run more ranks");
    const std::uint64_t slots = chunk.windows * s, words = kernels::kept_mask_words(slots);
    grow_to(lane.window_hits, std::max(words, chunk.windows) + 1);
    grow_to(lane.window_offsets, std::max(words, chunk.windows) + 1);
    auto mask = make_pooled<std::uint32_t>(words, lane.stream);
    auto packed = make_pooled<std::uint8_t>(lists.chunk_lists[c], lane.stream);
    auto lengths = make_pooled<std::uint8_t>(slots, lane.stream);
    chunk.segments.push_back(make_pooled<std::uint32_t>(hits, lane.stream));
    lane.upload_staged(mask.data(), lists.masks.data() + at.words[c], words);
    lane.upload_staged(packed.data(), lists.lengths.data() + at.lists[c], lists.chunk_lists[c]);
    lane.upload_staged(chunk.segments.back().data(), lists.hits.data() + at.hits[c], hits);
    kernels::unpack_kept_lengths(mask.data(), packed.data(), slots, lengths.data(),
                                 lane.window_hits.data(), lane.window_offsets.data(),
                                 lane.scratch, lane.stream);
    kernels::adopt_kept_lists(lengths.data(), chunk.windows, s,
                              std::uint32_t(chunk.segments.size() - 1), lane.window_hits.data(),
                              lane.window_offsets.data(), lane.scratch, chunk.kept.data(),
                              chunk.window_hits.data(), lane.stream);
    // The host's lists are read before they go, the buffers freed after use.
    cuda::check(cudaStreamSynchronize(lane.stream), "adding another process's kept lists");
    std::lock_guard lock(mutex);
    held_bytes_ += chunk.segments.back().size_bytes();
    stats_.hits += hits;
  });
}

void KeptChunks::finish(std::span<const std::span<ReadResult>> results) {
  const Classifier& classifier = *classifier_;
  std::mutex mutex;  // guards held_bytes_ and stats_
  on_lanes([&](KeptChunk& chunk, KeptLane& lane) {
    upload(chunk, lane, mutex);
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
