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
#include "pipeline/gpu/chunk_decider.hpp"
#include "pipeline/gpu/device_database.hpp"
#include "pipeline/gpu/selected_gpu.hpp"
#include "pipeline/gpu_available.hpp"
#include "pipeline/query/gpu_query.hpp"

namespace metawarp::pipeline {
namespace {

using cuda::grow_to;
using gpu::DeviceTaxa;
using kernels::QuerySequence;

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

  const GpuEngine* engine_ = nullptr;
  std::size_t device_index_;  // in the layout's devices
  cuda::stream stream_;
  GpuQueryStats stats_;
  cuda::event start_, uploaded_, counted_;

  cuda::pinned_buffer<char> host_bases_;
  cuda::pinned_buffer<QuerySequence> host_sequences_;
  cuda::pinned_buffer<std::uint64_t> host_total_;
  std::vector<std::uint32_t> read_windows_;

  cuda::device_buffer<char> bases_;
  cuda::device_buffer<QuerySequence> sequences_;
  cuda::device_buffer<kernels::ListRange> ranges_;
  cuda::device_buffer<std::uint8_t> window_features_;  // with the evidence from the device
  cuda::device_buffer<std::uint64_t> window_hits_;
  cuda::device_buffer<std::uint64_t> window_offsets_;
  cuda::device_buffer<std::uint64_t> read_offsets_;
  kernels::CubScratch scratch_;
  // The matched-bases rule (Classifier::match_rule()): each window feature's
  // read position.
  cuda::device_buffer<std::uint32_t> positions_;
  gpu::ChunkDecider decider_;  // gather, sort, score, download, finish
};

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
      taxa_ = gpu::upload_taxa(devices_, classifier_->taxa());
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
    std::uint64_t bases = 0;
    const std::size_t count = gpu::chunk_end(reads.subspan(first), engine_->gpu().chunk_bases, bases);
    run_chunk(reads.subspan(first, count), results.subspan(first, count), bases);
    first += count;
  }
}

void GpuLane::run_chunk(std::span<const ReadView> reads, std::span<ReadResult> results,
                        std::uint64_t bases) {
  host::Stopwatch pack_clock;
  const std::uint32_t n = std::uint32_t(reads.size());
  const std::uint32_t sequences = 2 * n + 1;
  const sketch::SketchParams& p = engine_->params();
  grow_to(host_bases_, bases);
  grow_to(host_sequences_, sequences);
  const std::uint64_t windows =
      gpu::pack_reads(reads, p, host_bases_.data(), host_sequences_.data(), read_windows_);
  stats_.pack_seconds += pack_clock.lap();

  grow_to(bases_, bases);
  grow_to(sequences_, sequences);
  grow_to(ranges_, windows * p.sketch_size);
  grow_to(window_hits_, windows + 1);
  grow_to(window_offsets_, windows + 1);
  grow_to(read_offsets_, n + 1);
  const Classifier& classifier = engine_->classifier();
  const bool match = classifier.match_rule();
  if (match) grow_to(positions_, windows * p.sketch_size);
  const bool taxa = gpu::taxa_from_device(classifier.options());
  if (taxa) grow_to(window_features_, windows);

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
  decider_.decide(chunk, total, index, classifier, taxa ? &engine_->taxa(device_index_) : nullptr,
                  counted_, stream, stats_);

  stats_.chunks += 1;
  stats_.reads += n;
  stats_.copy_in_seconds += gpu::seconds_between(start_, uploaded_);
  stats_.sketch_lookup_seconds += gpu::seconds_between(uploaded_, counted_);
  // The host's part: Classifier::finish, the one that fills a result on
  // every engine, from the candidates the device decided.
  host::Stopwatch clock;
  decider_.finish(reads, results, classifier, host_sequences_.data(), read_windows_);
  stats_.assign_seconds += clock.lap();
  engine_->add(stats_);
  stats_ = GpuQueryStats();
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
