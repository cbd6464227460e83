// The GPU query engine behind make_gpu_query_engine. The database is uploaded
// once, in shards over the layout's GPUs (device_database.hpp); the worker
// threads then share a few lanes (a stream and its buffers each, spread over
// the GPUs; a lane's kernels read every shard, on other GPUs through peer
// access): a worker takes an idle lane for its batch, which packs the bases
// into pinned memory, uploads them and runs the chunk kernels of
// kernels/query_chunk.hpp. The lanes overlap one another's copies, kernels
// and host work. Candidate scoring runs the shared classify::top_candidates
// on the GPU; the assignment (classify::assign) runs on the host, the same
// function as on the CPU path, so every read gets exactly the CPU's result.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <iterator>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <vector>

#include "kernels/query_chunk.hpp"
#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/cuda/event.hpp"
#include "metawarp/cuda/grow.hpp"
#include "metawarp/cuda/pinned_buffer.hpp"
#include "metawarp/cuda/stream.hpp"
#include "metawarp/host/channel.hpp"
#include "metawarp/host/clock.hpp"
#include "metawarp/host/thread_group.hpp"
#include "pipeline/gpu/device_database.hpp"
#include "pipeline/gpu/selected_gpu.hpp"
#include "pipeline/gpu_available.hpp"
#include "pipeline/query/gpu_query.hpp"

namespace metawarp::pipeline {
namespace {

using cuda::grow_to;
using kernels::QuerySequence;

// A chunk never holds more reads than this (sizes the per-read arrays).
constexpr std::size_t max_chunk_reads = std::size_t(1) << 20;

class GpuEngine;

// A stream with its buffers; one worker at a time classifies through it.
class GpuLane {
 public:
  // Made with its GPU selected (on any thread: lanes are made while the
  // database loads, load_for_gpu_query), its pinned bases buffer holding
  // `reserved_bases` already: pinned memory is slow to allocate, and a lane
  // that allocates it on its first batch holds up the first batches. Device
  // buffers still grow on first use: taken during the upload, they would
  // race with its check that the database fits in GPU memory.
  GpuLane(std::size_t device_index, std::uint64_t reserved_bases)
      : device_index_(device_index), host_total_(1) {
    grow_to(host_bases_, reserved_bases);
  }
  std::size_t device_index() const { return device_index_; }
  ~GpuLane() { cudaStreamSynchronize(stream_); }  // buffers must outlive work still queued
  // The engine whose database and options the lane uses; once, before classify().
  void attach(const GpuEngine& engine) { engine_ = &engine; }

  void classify(std::span<const ReadView> reads, std::span<ReadResult> results);

 private:
  void run_chunk(std::span<const ReadView> reads, std::span<ReadResult> results,
                 std::uint64_t bases);
  std::uint64_t pack(std::span<const ReadView> reads);
  void finish(std::span<const ReadView> reads, std::span<ReadResult> results);
  // Read r's feature taxa from the chunk's (host_taxa_), in the sketch's
  // order; returns how many are mate 1's.
  std::uint32_t read_taxa(std::size_t r, std::vector<classify::taxon_node_t>& taxa) const;
  // The evidence from the feature taxa computed on the device (read_taxa), not
  // from a second lookup of the read on the host; not with
  // --report-minimizer-data, which needs each feature's hash as well.
  bool taxa_from_device() const;

  const GpuEngine* engine_ = nullptr;
  std::size_t device_index_;  // in the layout's devices
  cuda::stream stream_;
  GpuQueryStats stats_;
  cuda::event start_, uploaded_, counted_, sorted_, scored_, downloaded_;

  cuda::pinned_buffer<char> host_bases_;
  cuda::pinned_buffer<QuerySequence> host_sequences_;
  cuda::pinned_buffer<std::uint64_t> host_total_;
  cuda::pinned_buffer<classify::Candidate> host_top_;
  cuda::pinned_buffer<std::uint32_t> host_top_counts_;
  cuda::pinned_buffer<std::uint32_t> host_hit_counts_;
  cuda::pinned_buffer<classify::taxon_node_t> host_taxa_;  // taxa_from_device() only
  cuda::pinned_buffer<std::uint8_t> host_window_features_;  // taxa_from_device() only
  std::vector<std::uint32_t> read_windows_;
  cuda::pinned_buffer<std::uint32_t> host_matched_;  // Classifier::match_rule() only
  ReadStage evidence_stage_;  // a read's lists for its evidence, on the host
  std::vector<classify::taxon_node_t> read_taxa_;  // a read's feature taxa

  cuda::device_buffer<char> bases_;
  cuda::device_buffer<QuerySequence> sequences_;
  cuda::device_buffer<kernels::ListRange> ranges_;
  cuda::device_buffer<std::uint8_t> window_features_;
  cuda::device_buffer<classify::taxon_node_t> feature_taxa_;
  cuda::device_buffer<std::uint64_t> window_hits_;
  cuda::device_buffer<std::uint64_t> window_offsets_;
  cuda::device_buffer<std::uint64_t> read_offsets_;
  cuda::device_buffer<std::uint64_t> large_read_ends_;
  cuda::device_buffer<std::uint32_t> keys_;
  cuda::device_buffer<std::uint32_t> keys_sorted_;
  cuda::device_buffer<sketch::Location> hits_;
  kernels::CubScratch scratch_;
  cuda::device_buffer<classify::Candidate> top_;
  cuda::device_buffer<std::uint32_t> top_counts_;
  cuda::device_buffer<std::uint32_t> hit_counts_;
  // The matched-bases rule (Classifier::match_rule()): each window feature's
  // read position, the kernel's sorted positions, each read's matched bases.
  cuda::device_buffer<std::uint32_t> positions_;
  cuda::device_buffer<std::uint32_t> matched_positions_;
  cuda::device_buffer<std::uint32_t> matched_;
};

// The taxonomy arrays classify::feature_taxon_of needs, on one GPU.
struct DeviceTaxa {
  cuda::device_buffer<classify::taxon_node_t> target_node, parent;
  cuda::device_buffer<std::uint32_t> depth;
  classify::TaxonTree tree() const { return {parent.data(), depth.data()}; }
};

// Uploads `taxa` to each of `devices` (the same index as the lanes'); leaves
// the first selected.
std::vector<DeviceTaxa> upload_taxa(const std::vector<gpu::SelectedGpu>& devices,
                                    const TaxonArrays& taxa) {
  std::vector<DeviceTaxa> out(devices.size());
  for (std::size_t d = 0; d < devices.size(); ++d) {
    devices[d].select();
    cuda::stream stream;
    out[d].target_node = cuda::copy_to_device(std::span(taxa.target_node), stream);
    out[d].parent = cuda::copy_to_device(std::span(taxa.parent), stream);
    out[d].depth = cuda::copy_to_device(std::span(taxa.depth), stream);
    cuda::check(cudaStreamSynchronize(stream), "uploading the taxonomy");
  }
  devices[0].select();
  return out;
}

// The engine's lanes, round-robin over the layout's GPUs (`devices`, open),
// made on the calling thread, which keeps the first GPU selected.
std::vector<std::unique_ptr<GpuLane>> make_lanes(const std::vector<gpu::SelectedGpu>& devices,
                                                 const GpuQueryOptions& gpu) {
  std::vector<std::unique_ptr<GpuLane>> lanes;
  for (std::uint32_t i = 0; i < gpu.lanes; ++i) {
    const std::size_t d = i % devices.size();
    devices[d].select();
    lanes.push_back(std::make_unique<GpuLane>(
        d, gpu.reserved_bases == 0 ? gpu.chunk_bases
                                   : std::min(gpu.reserved_bases, gpu.chunk_bases)));
  }
  devices[0].select();
  return lanes;
}

class GpuEngine final : public GpuQueryEngine {
 public:
  // Uploads db's index, unless `uploaded` holds it already (uploaded while
  // the file was read, in `upload_seconds`); makes the lanes unless `lanes`
  // holds them (made while the file was read).
  GpuEngine(const db::Database& db, const ClassifierOptions& classifier,
            const GpuQueryOptions& gpu, std::optional<gpu::DeviceDatabase> uploaded = {},
            double upload_seconds = 0, std::vector<std::unique_ptr<GpuLane>> lanes = {})
      : devices_(gpu::open_gpus(gpu.layout)),
        db_(db),
        classifier_(std::in_place, db, classifier),
        options_(classifier),
        gpu_(gpu),
        params_(db.params.sketch),
        index_(std::move(uploaded)),
        idle_(gpu.lanes) {
    stats_.upload_seconds = upload_seconds;
    if (!index_) {
      const auto start = std::chrono::steady_clock::now();
      index_.emplace(gpu::upload_index(db, gpu.layout));
      stats_.upload_seconds = host::seconds_since(start);
    }
    stats_.database_bytes = index_->bytes();
    stats_.devices = index_->layout().devices;
    stats_.device_bytes = index_->device_bytes();
    stats_.shards = index_->cuts().size();
    upload_taxa_if_needed();
    if (lanes.empty()) lanes = make_lanes(devices_, gpu);
    for (std::unique_ptr<GpuLane>& lane : lanes) {
      lane->attach(*this);
      idle_.push(std::move(lane));
    }
    devices_[0].select();
    stats_.lanes = gpu.lanes;
  }
  ~GpuEngine() override {
    idle_.cancel();  // the lanes go before the index
    // The members are freed on the destroying thread, which need not be the
    // one that loaded them (query_command loads on a thread of its own): on
    // the layout's first GPU, as when they were made, not on device 0.
    cudaSetDevice(devices_[0].device());
  }

  std::unique_ptr<BatchClassifier> make_classifier() const override;

  // Nothing on the GPU depends on the options: each chunk reads them.
  void use_options(const ClassifierOptions& classifier) override {
    Classifier checked(db_, classifier);  // throws for options out of range, as the constructor
    classifier_.emplace(std::move(checked));
    options_ = classifier;
    upload_taxa_if_needed();
  }

  // An idle lane; waits while all are taken.
  std::unique_ptr<GpuLane> acquire_lane() const {
    std::unique_ptr<GpuLane> lane;
    if (!idle_.pop(lane)) throw std::logic_error("the GPU lanes are gone");
    return lane;
  }
  void release_lane(std::unique_ptr<GpuLane> lane) const { idle_.push(std::move(lane)); }

  GpuQueryStats stats() const override {
    std::lock_guard lock(mutex_);
    return stats_;
  }
  void add(const GpuQueryStats& lane) const {
    std::lock_guard lock(mutex_);
    stats_.chunks += lane.chunks;
    stats_.reads += lane.reads;
    stats_.hits += lane.hits;
    stats_.pack_seconds += lane.pack_seconds;
    stats_.copy_in_seconds += lane.copy_in_seconds;
    stats_.sketch_lookup_seconds += lane.sketch_lookup_seconds;
    stats_.gather_sort_seconds += lane.gather_sort_seconds;
    stats_.candidates_seconds += lane.candidates_seconds;
    stats_.copy_out_seconds += lane.copy_out_seconds;
    stats_.assign_seconds += lane.assign_seconds;
  }

  void select_device(std::size_t device_index) const { devices_[device_index].select(); }
  const DeviceTaxa& taxa(std::size_t device_index) const { return taxa_[device_index]; }
  const Classifier& classifier() const { return *classifier_; }
  const ClassifierOptions& options() const { return options_; }
  const GpuQueryOptions& gpu() const { return gpu_; }
  const sketch::SketchParams& params() const { return params_; }
  kernels::DeviceIndexView index(std::size_t device_index) const {
    return index_->view(device_index);
  }

 private:
  // The taxonomy arrays on the GPUs, the first time a classifier needs the
  // evidence (a classifier without it has none: Classifier's constructor).
  void upload_taxa_if_needed() {
    if (taxa_.empty() && classifier_->options().needs_evidence())
      taxa_ = upload_taxa(devices_, classifier_->taxa());
  }

  std::vector<gpu::SelectedGpu> devices_;  // first: everything below lives on them
  const db::Database& db_;
  std::optional<Classifier> classifier_;  // lineages and assignment parameters, as on the CPU
  ClassifierOptions options_;
  GpuQueryOptions gpu_;
  sketch::SketchParams params_;
  std::optional<gpu::DeviceDatabase> index_;
  std::vector<DeviceTaxa> taxa_;  // per GPU, once needed: the same for every classifier of db_
  mutable std::mutex mutex_;  // guards stats_
  mutable GpuQueryStats stats_;
  mutable host::Channel<std::unique_ptr<GpuLane>> idle_;  // the pool of lanes
};

// What a worker thread holds: a lane from the pool for each batch.
class PooledGpuClassifier final : public BatchClassifier {
 public:
  explicit PooledGpuClassifier(const GpuEngine& engine) : engine_(engine) {}
  void classify(std::span<const ReadView> reads, std::span<ReadResult> results) override {
    std::unique_ptr<GpuLane> lane = engine_.acquire_lane();
    try {
      engine_.select_device(lane->device_index());  // the CUDA device is per host thread
      lane->classify(reads, results);
    } catch (...) {
      engine_.release_lane(std::move(lane));
      throw;
    }
    engine_.release_lane(std::move(lane));
  }

 private:
  const GpuEngine& engine_;
};

std::unique_ptr<BatchClassifier> GpuEngine::make_classifier() const {
  return std::make_unique<PooledGpuClassifier>(*this);
}

void GpuLane::classify(std::span<const ReadView> reads, std::span<ReadResult> results) {
  for (std::size_t first = 0; first < reads.size();) {
    std::size_t last = first;
    std::uint64_t bases = 0;
    while (last < reads.size() && last - first < max_chunk_reads) {
      const std::uint64_t b = reads[last].mate1.size() + reads[last].mate2.size();
      if (last > first && bases + b > engine_->gpu().chunk_bases) break;
      bases += b;
      ++last;
    }
    run_chunk(reads.subspan(first, last - first), results.subspan(first, last - first), bases);
    first = last;
  }
}

// Bases of both mates into the pinned buffer; returns the chunk's windows.
std::uint64_t GpuLane::pack(std::span<const ReadView> reads) {
  const sketch::SketchParams& p = engine_->params();
  QuerySequence* seqs = host_sequences_.data();
  read_windows_.resize(reads.size());
  std::uint64_t offset = 0, windows = 0;
  for (std::size_t r = 0; r < reads.size(); ++r) {
    std::uint32_t read_windows = 0;
    int m = 0;
    for (std::string_view mate : {reads[r].mate1, reads[r].mate2}) {
      if (!mate.empty()) std::memcpy(host_bases_.data() + offset, mate.data(), mate.size());
      seqs[2 * r + m++] = QuerySequence{offset, mate.size(), windows};
      const std::uint64_t count = sketch::window_count(mate.size(), p);
      windows += count;
      read_windows += std::uint32_t(count);  // as Classifier::sketch counts them
      offset += mate.size();
    }
    read_windows_[r] = read_windows;
  }
  seqs[2 * reads.size()] = QuerySequence{offset, 0, windows};
  return windows;
}

void GpuLane::run_chunk(std::span<const ReadView> reads, std::span<ReadResult> results,
                        std::uint64_t bases) {
  host::Stopwatch pack_clock;
  const std::uint32_t n = std::uint32_t(reads.size());
  const std::uint32_t sequences = 2 * n + 1;
  const sketch::SketchParams& p = engine_->params();
  const std::uint32_t max_candidates = engine_->options().max_candidates;
  grow_to(host_bases_, bases);
  grow_to(host_sequences_, sequences);
  const std::uint64_t windows = pack(reads);
  stats_.pack_seconds += pack_clock.lap();

  grow_to(bases_, bases);
  grow_to(sequences_, sequences);
  grow_to(ranges_, windows * p.sketch_size);
  grow_to(window_hits_, windows + 1);
  grow_to(window_offsets_, windows + 1);
  grow_to(read_offsets_, n + 1);
  grow_to(large_read_ends_, n);
  grow_to(top_, std::uint64_t(n) * max_candidates);
  grow_to(top_counts_, n);
  grow_to(hit_counts_, n);
  grow_to(host_top_, std::uint64_t(n) * max_candidates);
  grow_to(host_top_counts_, n);
  grow_to(host_hit_counts_, n);
  const bool match = engine_->classifier().match_rule();
  if (match) {
    grow_to(positions_, windows * p.sketch_size);
    grow_to(matched_positions_, windows * p.sketch_size);
    grow_to(matched_, n);
    grow_to(host_matched_, n);
  }
  const bool taxa = taxa_from_device();
  if (taxa) {
    grow_to(window_features_, windows);
    grow_to(host_window_features_, windows);
    grow_to(feature_taxa_, windows * p.sketch_size);
    grow_to(host_taxa_, windows * p.sketch_size);
  }

  const cudaStream_t stream = stream_;
  const kernels::QueryChunkView chunk{bases_.data(),          sequences_.data(),
                                      n,                      windows,
                                      ranges_.data(),         window_hits_.data(),
                                      window_offsets_.data(), read_offsets_.data(),
                                      taxa ? window_features_.data() : nullptr,
                                      match ? positions_.data() : nullptr};
  start_.record(stream);
  bases_.copy_from_host(host_bases_.data(), bases, stream);
  sequences_.copy_from_host(host_sequences_.data(), sequences, stream);
  uploaded_.record(stream);
  const kernels::DeviceIndexView index = engine_->index(device_index_);
  kernels::count_hits(chunk, p, index, scratch_, stream);
  cuda::check(cudaMemcpyAsync(host_total_.data(), window_offsets_.data() + windows,
                              sizeof(std::uint64_t), cudaMemcpyDeviceToHost, stream),
              "downloading the chunk's hit count");
  counted_.record(stream);
  counted_.synchronize();  // the gather buffers are sized by the total
  const std::uint64_t total = host_total_[0];
  stats_.hits += total;

  grow_to(keys_, total);
  grow_to(keys_sorted_, total);
  grow_to(hits_, total);
  const kernels::CandidateParams cp{p.stride(), engine_->options().insert_size, max_candidates};
  kernels::gather_sorted_hits(chunk, p.sketch_size, index, cp, total, keys_.data(),
                              keys_sorted_.data(), large_read_ends_.data(), hits_.data(),
                              scratch_, stream);
  sorted_.record(stream);
  kernels::score_candidates(chunk, hits_.data(), cp, top_.data(), top_counts_.data(), hit_counts_.data(), stream);
  if (match)
    kernels::matched_bases(chunk, p.sketch_size, p.k, index, cp, top_.data(), top_counts_.data(),
                           matched_positions_.data(), matched_.data(), stream);
  if (taxa) {
    const DeviceTaxa& t = engine_->taxa(device_index_);
    kernels::feature_taxa(chunk, p.sketch_size, index, t.target_node.data(), t.tree(),
                          feature_taxa_.data(), stream);
  }
  scored_.record(stream);
  top_.copy_to_host(host_top_.data(), std::uint64_t(n) * max_candidates, stream);
  top_counts_.copy_to_host(host_top_counts_.data(), n, stream);
  hit_counts_.copy_to_host(host_hit_counts_.data(), n, stream);
  if (match) matched_.copy_to_host(host_matched_.data(), n, stream);
  if (taxa) {
    feature_taxa_.copy_to_host(host_taxa_.data(), windows * p.sketch_size, stream);
    window_features_.copy_to_host(host_window_features_.data(), windows, stream);
  }
  downloaded_.record(stream);
  cuda::check(cudaStreamSynchronize(stream), "running the GPU query kernels");

  stats_.chunks += 1;
  stats_.reads += n;
  // Timing is best effort: a tool or driver without event timing must not
  // stop the classification.
  auto seconds = [](const cuda::event& from, const cuda::event& to) {
    float ms = 0;
    if (cudaEventElapsedTime(&ms, from.get(), to.get()) != cudaSuccess) {
      (void)cudaGetLastError();
      return 0.0;
    }
    return double(ms) / 1e3;
  };
  stats_.copy_in_seconds += seconds(start_, uploaded_);
  stats_.sketch_lookup_seconds += seconds(uploaded_, counted_);
  stats_.gather_sort_seconds += seconds(counted_, sorted_);
  stats_.candidates_seconds += seconds(sorted_, scored_);
  stats_.copy_out_seconds += seconds(scored_, downloaded_);
  finish(reads, results);
  engine_->add(stats_);
  stats_ = GpuQueryStats();
}

// The host's part: Classifier::finish, the one that fills a result on
// every engine, from the candidates the device decided.
void GpuLane::finish(std::span<const ReadView> reads, std::span<ReadResult> results) {
  host::Stopwatch clock;
  const Classifier& classifier = engine_->classifier();
  const std::uint32_t max_candidates = engine_->options().max_candidates;
  const bool evidence = classifier.options().needs_evidence();
  const bool device_taxa = taxa_from_device();
  for (std::size_t r = 0; r < reads.size(); ++r) {
    // The best candidate's matched bases: the device's (kernels::matched_bases).
    const ReadDecision decision{
        read_windows_[r], host_hit_counts_[r],
        std::span<const classify::Candidate>(host_top_.data() + r * max_candidates,
                                             host_top_counts_[r]),
        !reads[r].mate2.empty(), reads[r].mate1.size() + reads[r].mate2.size(),
        classifier.match_rule() ? host_matched_[r] : 0};
    // The evidence column and --confidence need each feature's taxon: from
    // the device, which computed it over the list it found; with
    // --report-minimizer-data each feature is looked up again by the CPU
    // classifier's own code, which also gives the features' hashes.
    FeatureEvidence features;
    if (evidence && device_taxa) {
      features.mate1_features = read_taxa(r, read_taxa_);
      features.taxa = read_taxa_;
    } else if (evidence) {
      classifier.look_up(reads[r].mate1, reads[r].mate2, evidence_stage_);
      features = {evidence_stage_.features, evidence_stage_.lists, {},
                  evidence_stage_.shape.mate1_features};
    }
    classifier.finish(decision, features, results[r]);
  }
  stats_.assign_seconds += clock.lap();
}

bool GpuLane::taxa_from_device() const {
  const ClassifierOptions& options = engine_->classifier().options();
  return options.needs_evidence() && !options.found_features;
}

std::uint32_t GpuLane::read_taxa(std::size_t r, std::vector<classify::taxon_node_t>& taxa) const {
  const std::uint32_t s = engine_->params().sketch_size;
  const QuerySequence* seqs = host_sequences_.data();
  const std::uint64_t first = seqs[2 * r].window_prefix, mate2 = seqs[2 * r + 1].window_prefix,
                      end = seqs[2 * r + 2].window_prefix;
  taxa.clear();
  std::uint32_t mate1_features = 0;
  for (std::uint64_t w = first; w < end; ++w) {
    if (w == mate2) mate1_features = std::uint32_t(taxa.size());
    const classify::taxon_node_t* window = host_taxa_.data() + w * s;
    taxa.insert(taxa.end(), window, window + host_window_features_[w]);
  }
  return mate2 == end ? std::uint32_t(taxa.size()) : mate1_features;
}

}  // namespace

std::unique_ptr<GpuQueryEngine> make_gpu_query_engine(const db::Database& db,
                                                      const ClassifierOptions& classifier,
                                                      const GpuQueryOptions& gpu) {
  if (gpu.lanes == 0) throw std::invalid_argument("the GPU query needs at least one lane");
  return std::make_unique<GpuEngine>(db, classifier, gpu);
}

GpuLoadedDatabase load_for_gpu_query(const std::filesystem::path& path,
                                     const ClassifierOptions& classifier,
                                     const GpuQueryOptions& gpu) {
  if (gpu.lanes == 0) throw std::invalid_argument("the GPU query needs at least one lane");
  const std::vector<gpu::SelectedGpu> devices = gpu::open_gpus(gpu.layout);  // before the buffers
  const auto start = std::chrono::steady_clock::now();
  GpuLoadedDatabase loaded;
  std::optional<gpu::DeviceDatabase> index;
  // The lanes (streams, pinned and device buffers) are made on a thread of
  // their own while the file is read and uploaded, so that the first batches
  // find them ready (docs/benchmarks.md, issue 13: start-up).
  std::vector<std::unique_ptr<GpuLane>> lanes;
  {
    host::ThreadGroup lane_maker;  // joined by its destructor if the load throws
    lane_maker.spawn([&] { lanes = make_lanes(devices, gpu); });
    gpu::StreamingIndexUpload upload(gpu.layout);
    loaded.database = std::make_unique<db::Database>(db::load(path, 0, &upload));
    index.emplace(upload.finish(*loaded.database));
    lane_maker.join();
  }
  loaded.engine = std::make_unique<GpuEngine>(*loaded.database, classifier, gpu, std::move(index),
                                              host::seconds_since(start), std::move(lanes));
  return loaded;
}

}  // namespace metawarp::pipeline
