// The GPU query engine behind pipeline::make_gpu_query_engine. The database is
// uploaded once; the worker threads then share a few lanes (a stream and its
// buffers each): a worker takes an idle lane for its batch, which packs the
// bases into pinned memory, uploads them and runs the kernels of
// query_kernels.cuh. The lanes overlap one another's copies, kernels and host
// work; more than a few lanes only queue behind one another's kernels.
// Candidate scoring runs the shared classify::top_candidates on the GPU; the
// assignment (classify::assign) runs on the host, the same function as on the
// CPU path, so every read gets exactly the CPU's result.
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <stdexcept>

#include "kernels/device_database.cuh"
#include "kernels/query_kernels.cuh"
#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/cuda/event.hpp"
#include "metawarp/cuda/pinned_buffer.hpp"
#include "metawarp/cuda/stream.hpp"
#include "pipeline/gpu_backend.hpp"
#include "pipeline/gpu_query.hpp"

namespace metawarp::pipeline {

namespace {

using kernels::ListRange;
using kernels::QuerySequence;

// A chunk never holds more reads than this (sizes the per-read arrays).
constexpr std::size_t max_chunk_reads = std::size_t(1) << 20;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Buffers only grow (by half again at least), so a lane stops allocating
// once it has seen its largest chunk.
template <class Buffer>
void reserve(Buffer& buffer, std::size_t size) {
  if (buffer.size() >= size) return;
  const std::size_t grown = std::max(size, buffer.size() + buffer.size() / 2);
  buffer = Buffer();  // free first: the old and new buffer need not coexist
  buffer = Buffer(grown);
}

unsigned blocks_for(std::uint64_t threads, unsigned block) {
  return unsigned(std::min<std::uint64_t>((threads + block - 1) / block, std::uint64_t(1) << 20));
}

class GpuEngine;

class GpuLane final : public BatchClassifier {
 public:
  explicit GpuLane(const GpuEngine& engine);
  ~GpuLane() override;
  void classify(std::span<const ReadView> reads, std::span<ReadResult> results) override;

 private:
  void run_chunk(std::span<const ReadView> reads, std::span<ReadResult> results,
                 std::uint64_t bases);
  std::uint64_t pack(std::span<const ReadView> reads);
  void finish(std::span<const ReadView> reads, std::span<ReadResult> results);

  const GpuEngine& engine_;  // the device is selected before a lane is made
  cuda::stream stream_;
  GpuQueryStats stats_;
  cuda::event start_, uploaded_, counted_, sorted_, scored_, downloaded_;

  cuda::pinned_buffer<char> host_bases_;
  cuda::pinned_buffer<QuerySequence> host_sequences_;
  cuda::pinned_buffer<std::uint64_t> host_total_;
  cuda::pinned_buffer<classify::Candidate> host_top_;
  cuda::pinned_buffer<std::uint32_t> host_top_counts_;
  cuda::pinned_buffer<std::uint32_t> host_hit_counts_;
  std::vector<std::uint32_t> read_windows_;

  cuda::device_buffer<char> bases_;
  cuda::device_buffer<QuerySequence> sequences_;
  cuda::device_buffer<ListRange> ranges_;
  cuda::device_buffer<std::uint64_t> window_hits_;
  cuda::device_buffer<std::uint64_t> window_offsets_;
  cuda::device_buffer<std::uint64_t> read_offsets_;
  cuda::device_buffer<std::uint64_t> keys_;
  cuda::device_buffer<std::uint64_t> keys_alt_;
  cuda::device_buffer<char> temp_;
  cuda::device_buffer<classify::Candidate> top_;
  cuda::device_buffer<std::uint32_t> top_counts_;
  cuda::device_buffer<std::uint32_t> hit_counts_;
};

class GpuEngine final : public GpuQueryEngine {
 public:
  GpuEngine(const db::Database& db, const ClassifierOptions& classifier,
            const GpuQueryOptions& gpu)
      : classifier_(db, classifier), options_(classifier), gpu_(gpu), params_(db.params.sketch) {
    select_device();
    const auto start = std::chrono::steady_clock::now();
    const cuda::stream stream;
    database_.emplace(db.index, stream);
    stats_.upload_seconds = seconds_since(start);
    stats_.database_bytes = database_->bytes();
  }

  std::unique_ptr<BatchClassifier> make_classifier() const override;

  // An idle lane, or a new one while fewer than gpu.lanes exist; else waits.
  std::unique_ptr<GpuLane> acquire_lane() const {
    std::unique_lock lock(pool_mutex_);
    pool_changed_.wait(lock, [&] { return !idle_.empty() || created_ < gpu_.lanes; });
    if (!idle_.empty()) {
      std::unique_ptr<GpuLane> lane = std::move(idle_.back());
      idle_.pop_back();
      return lane;
    }
    ++created_;
    lock.unlock();
    try {
      auto lane = std::make_unique<GpuLane>(*this);
      std::lock_guard stats_lock(mutex_);
      ++stats_.lanes;
      return lane;
    } catch (...) {
      lock.lock();
      --created_;
      pool_changed_.notify_one();
      throw;
    }
  }
  void release_lane(std::unique_ptr<GpuLane> lane) const {
    std::lock_guard lock(pool_mutex_);
    idle_.push_back(std::move(lane));
    pool_changed_.notify_one();
  }
  GpuQueryStats stats() const override {
    std::lock_guard lock(mutex_);
    return stats_;
  }

  // The CUDA device is per host thread: every lane's thread selects it.
  void select_device() const { cuda::check(cudaSetDevice(gpu_.device), "selecting the GPU"); }
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

  const Classifier& classifier() const { return classifier_; }
  const ClassifierOptions& options() const { return options_; }
  const GpuQueryOptions& gpu() const { return gpu_; }
  const sketch::SketchParams& params() const { return params_; }
  kernels::DeviceIndexRef index() const { return database_->ref(); }

 private:
  Classifier classifier_;  // lineages and assignment parameters, as on the CPU
  ClassifierOptions options_;
  GpuQueryOptions gpu_;
  sketch::SketchParams params_;
  std::optional<kernels::DeviceDatabase> database_;
  mutable std::mutex mutex_;  // guards stats_
  mutable GpuQueryStats stats_;
  mutable std::mutex pool_mutex_;  // guards idle_ and created_
  mutable std::condition_variable pool_changed_;
  mutable std::vector<std::unique_ptr<GpuLane>> idle_;  // destroyed before database_
  mutable std::uint32_t created_ = 0;
};

// What a worker thread holds: a lane from the pool for each batch.
class PooledGpuClassifier final : public BatchClassifier {
 public:
  explicit PooledGpuClassifier(const GpuEngine& engine) : engine_(engine) {}
  void classify(std::span<const ReadView> reads, std::span<ReadResult> results) override {
    engine_.select_device();
    std::unique_ptr<GpuLane> lane = engine_.acquire_lane();
    try {
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

GpuLane::GpuLane(const GpuEngine& engine) : engine_(engine), host_total_(1) {}

GpuLane::~GpuLane() {
  cudaStreamSynchronize(stream_);  // buffers must outlive work still queued
}

void GpuLane::classify(std::span<const ReadView> reads, std::span<ReadResult> results) {
  engine_.select_device();
  for (std::size_t first = 0; first < reads.size();) {
    std::size_t last = first;
    std::uint64_t bases = 0;
    while (last < reads.size() && last - first < max_chunk_reads) {
      const std::uint64_t b = reads[last].mate1.size() + reads[last].mate2.size();
      if (last > first && bases + b > engine_.gpu().chunk_bases) break;
      bases += b;
      ++last;
    }
    run_chunk(reads.subspan(first, last - first), results.subspan(first, last - first), bases);
    first = last;
  }
}

// Bases of both mates into the pinned buffer; returns the chunk's windows.
std::uint64_t GpuLane::pack(std::span<const ReadView> reads) {
  const sketch::SketchParams& p = engine_.params();
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
  const auto pack_start = std::chrono::steady_clock::now();
  const std::uint32_t n = std::uint32_t(reads.size());
  const std::uint32_t sequences = 2 * n + 1;
  const sketch::SketchParams& p = engine_.params();
  const std::uint32_t max_candidates = engine_.options().max_candidates;
  reserve(host_bases_, bases);
  reserve(host_sequences_, sequences);
  const std::uint64_t windows = pack(reads);
  stats_.pack_seconds += seconds_since(pack_start);

  reserve(bases_, bases);
  reserve(sequences_, sequences);
  reserve(ranges_, windows * p.sketch_size);
  reserve(window_hits_, windows + 1);
  reserve(window_offsets_, windows + 1);
  reserve(read_offsets_, n + 1);
  reserve(top_, std::uint64_t(n) * max_candidates);
  reserve(top_counts_, n);
  reserve(hit_counts_, n);
  reserve(host_top_, std::uint64_t(n) * max_candidates);
  reserve(host_top_counts_, n);
  reserve(host_hit_counts_, n);

  const cudaStream_t stream = stream_;
  const unsigned block = 256;
  start_.record(stream);
  bases_.copy_from_host(host_bases_.data(), bases, stream);
  sequences_.copy_from_host(host_sequences_.data(), sequences, stream);
  uploaded_.record(stream);

  cuda::check(cudaMemsetAsync(window_hits_.data() + windows, 0, sizeof(std::uint64_t), stream),
              "clearing the last window count");
  if (windows > 0) {
    kernels::lookup_count_kernel<<<blocks_for(windows, block), block, 0, stream>>>(
        bases_.data(), sequences_.data(), 2 * n, windows, p, engine_.index(), ranges_.data(),
        window_hits_.data());
    cuda::check_launch("lookup_count_kernel");
  }
  std::size_t temp_bytes = 0;
  cuda::check(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, window_hits_.data(),
                                            window_offsets_.data(), windows + 1, stream),
              "sizing the window scan");
  reserve(temp_, temp_bytes);
  temp_bytes = temp_.size();
  cuda::check(cub::DeviceScan::ExclusiveSum(temp_.data(), temp_bytes, window_hits_.data(),
                                            window_offsets_.data(), windows + 1, stream),
              "scanning the window hit counts");
  kernels::read_offsets_kernel<<<blocks_for(n + 1, block), block, 0, stream>>>(
      sequences_.data(), n, window_offsets_.data(), read_offsets_.data());
  cuda::check_launch("read_offsets_kernel");
  cuda::check(cudaMemcpyAsync(host_total_.data(), window_offsets_.data() + windows,
                              sizeof(std::uint64_t), cudaMemcpyDeviceToHost, stream),
              "downloading the chunk's hit count");
  counted_.record(stream);
  counted_.synchronize();  // the gather buffers are sized by the total
  const std::uint64_t total = host_total_[0];
  stats_.hits += total;

  const std::uint64_t* sorted = keys_.data();
  if (total > 0) {
    reserve(keys_, total);
    reserve(keys_alt_, total);
    kernels::gather_kernel<<<blocks_for(windows * 32, block), block, 0, stream>>>(
        ranges_.data(), window_offsets_.data(), windows, p.sketch_size, engine_.index(),
        keys_.data());
    cuda::check_launch("gather_kernel");
    cuda::check(cub::DeviceSegmentedSort::SortKeys(nullptr, temp_bytes, keys_.data(),
                                                   keys_alt_.data(), total, n,
                                                   read_offsets_.data(), read_offsets_.data() + 1,
                                                   stream),
                "sizing the per-read sort");
    reserve(temp_, temp_bytes);
    temp_bytes = temp_.size();
    cuda::check(cub::DeviceSegmentedSort::SortKeys(temp_.data(), temp_bytes, keys_.data(),
                                                   keys_alt_.data(), total, n,
                                                   read_offsets_.data(), read_offsets_.data() + 1,
                                                   stream),
                "sorting each read's hits");
    kernels::unpack_locations_kernel<<<blocks_for(total, block), block, 0, stream>>>(
        keys_alt_.data(), total);
    cuda::check_launch("unpack_locations_kernel");
    sorted = keys_alt_.data();
  }
  sorted_.record(stream);
  if (n > 0) {
    const kernels::CandidateParams cp{p.stride(), engine_.options().insert_size, max_candidates};
    kernels::top_candidates_kernel<<<blocks_for(n, 128), 128, 0, stream>>>(
        sequences_.data(), n, read_offsets_.data(),
        reinterpret_cast<const sketch::Location*>(sorted), cp, top_.data(), top_counts_.data(),
        hit_counts_.data());
    cuda::check_launch("top_candidates_kernel");
  }
  scored_.record(stream);
  top_.copy_to_host(host_top_.data(), std::uint64_t(n) * max_candidates, stream);
  top_counts_.copy_to_host(host_top_counts_.data(), n, stream);
  hit_counts_.copy_to_host(host_hit_counts_.data(), n, stream);
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
  engine_.add(stats_);
  stats_ = GpuQueryStats();
}

// The host's part, as Classifier::finish_read does it after the candidates.
void GpuLane::finish(std::span<const ReadView> reads, std::span<ReadResult> results) {
  const auto start = std::chrono::steady_clock::now();
  const Classifier& classifier = engine_.classifier();
  const std::uint32_t max_candidates = engine_.options().max_candidates;
  for (std::size_t r = 0; r < reads.size(); ++r) {
    ReadResult result;
    result.windows = read_windows_[r];
    result.hits = host_hit_counts_[r];
    result.candidate_count = host_top_counts_[r];
    std::copy_n(host_top_.data() + r * max_candidates, result.candidate_count, result.top);
    result.assignment =
        classify::assign(result.top, result.candidate_count, classifier.lineages().data(),
                         classifier.params(/*paired=*/!reads[r].mate2.empty()));
    results[r] = result;
  }
  stats_.assign_seconds += seconds_since(start);
}

}  // namespace

std::unique_ptr<GpuQueryEngine> make_gpu_query_engine(const db::Database& db,
                                                      const ClassifierOptions& classifier,
                                                      const GpuQueryOptions& gpu) {
  const std::string why = gpu_unavailable_reason();
  if (!why.empty()) throw std::runtime_error("GPU query requested, but " + why + "; use --device cpu");
  int count = 0;
  cuda::check(cudaGetDeviceCount(&count), "counting CUDA devices");
  if (gpu.lanes == 0) throw std::invalid_argument("the GPU query needs at least one lane");
  if (gpu.device < 0 || gpu.device >= count)
    throw std::invalid_argument("--gpu " + std::to_string(gpu.device) + ": there are only " +
                                std::to_string(count) + " CUDA devices");
  return std::make_unique<GpuEngine>(db, classifier, gpu);
}

}  // namespace metawarp::pipeline
