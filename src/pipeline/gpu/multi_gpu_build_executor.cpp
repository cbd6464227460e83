#include "pipeline/gpu/multi_gpu_build_executor.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iterator>
#include <map>
#include <optional>
#include <stdexcept>
#include <vector>

#include "kernels/sharded_build_table.hpp"
#include "kernels/pair_buffer.hpp"
#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/cuda/event.hpp"
#include "metawarp/cuda/pinned_buffer.hpp"
#include "metawarp/cuda/stream.hpp"
#include "metawarp/host/channel.hpp"
#include "metawarp/host/clock.hpp"
#include "metawarp/host/copy_pool.hpp"
#include "metawarp/host/parallel_for.hpp"
#include "metawarp/host/thread_group.hpp"
#include "metawarp/index/feature_split.hpp"
#include "pipeline/build/build_estimate.hpp"
#include "pipeline/gpu/build_batches.hpp"
#include "pipeline/gpu/build_finalize.hpp"
#include "pipeline/gpu/build_memory_plan.hpp"
#include "pipeline/gpu/device_index.hpp"
#include "pipeline/gpu/selected_gpu.hpp"

namespace metawarp::pipeline::gpu {
namespace {

using sketch::feature_t;

constexpr double gib = 1024.0 * 1024.0 * 1024.0;

// The pairs one round's kernel leaves for other shards on a GPU, and their
// count brought back.
struct PairSlot {
  cuda::device_buffer<std::uint64_t> count{1};
  cuda::device_buffer<feature_t> features;
  cuda::device_buffer<std::uint64_t> locations;
  cuda::pinned_buffer<std::uint64_t> sketched{1};
  cuda::event counted{cudaEventDisableTiming};  // `sketched` holds the count
  // Around the round's kernel, for the GPU's busy time (`timed`: recorded
  // this round; set by the driver before the round is handed over).
  cuda::event kernel_started, kernel_done;
  bool timed = false;

  explicit PairSlot(std::uint64_t capacity) : features(capacity), locations(capacity) {}

  kernels::PairBuffer view() const {
    return kernels::PairBuffer{count.data(), features.data(), locations.data(), features.size()};
  }
};

// What one GPU of the layout holds for the rounds, two of each: host
// batches, batches on the GPU and pair buffers. Rounds alternate between the
// two sides (round r uses side r % 2), so that while the driver packs one
// round, the one before is uploaded and sketched beside the exchange and
// insert of the one before that. Uploads have a stream of their own.
struct Sketcher {
  SelectedGpu device;  // first: everything below lives on that GPU
  cuda::stream stream;
  cuda::stream upload_stream;
  // Per side: the side's last upload queued (`host` read), its last sketch
  // queued (`batch` read).
  cuda::event uploaded[2]{cuda::event(cudaEventDisableTiming), cuda::event(cudaEventDisableTiming)};
  cuda::event sketched[2]{cuda::event(cudaEventDisableTiming), cuda::event(cudaEventDisableTiming)};
  HostBatch host[2];
  DeviceBatch batch[2];
  kernels::BatchView view[2]{};  // what the side's last upload put in `batch`
  PairSlot pairs[2];
  SpillBuffers spill;
  double kernel_seconds = 0;  // the fused kernels' time on the GPU (round thread's)

  Sketcher(int gpu, std::uint64_t batch_bases, std::uint64_t pair_capacity)
      : device(gpu, "build"),
        host{HostBatch(batch_bases), HostBatch(batch_bases)},
        batch{DeviceBatch(batch_bases), DeviceBatch(batch_bases)},
        pairs{PairSlot(pair_capacity), PairSlot(pair_capacity)},
        spill(stream) {}

  // Work queued ahead of a round that failed still reads `host` and writes
  // `pairs`: done before they are freed.
  ~Sketcher() {
    try {
      device.select();
      cudaStreamSynchronize(upload_stream);
      cudaStreamSynchronize(stream);
    } catch (...) {
    }
  }
  Sketcher(const Sketcher&) = delete;
  Sketcher& operator=(const Sketcher&) = delete;
};

class MultiGpuBuildExecutor final : public BuildExecutor {
 public:
  MultiGpuBuildExecutor(const BuildOptions& options, const BuildInputs& inputs)
      : options_(options),
        params_(options.params.sketch),
        layout_(options.gpu.layout),
        ranges_(index::split_features(options.features, layout_.shards(),
                                      feature_distribution(params_))),
        copier_(copy_threads(options.threads)) {
    check_batch_size(options.gpu.batch_bases, params_);
    const std::uint64_t all_pairs = options.gpu.table_capacity != 0
                                        ? options.gpu.table_capacity
                                        : estimate_pairs(inputs.files, params_);
    std::vector<kernels::ShardedBuildTable::Shard> shards;
    for (unsigned s = 0; s < ranges_.size(); ++s) {
      plans_.push_back(plan_memory(options.gpu, pairs_in_range(all_pairs, ranges_[s], params_)));
      shards.push_back({layout_.device_of(s), s == 0 ? 0 : ranges_[s].begin, plans_[s].slots,
                        plans_[s].pool_words});
    }
    const std::map<int, std::uint64_t> needed =
        device_memory(options.gpu, params_, options.features, all_pairs);
    for (const int device : layout_.devices) {
      std::uint64_t pairs = 0;
      for (unsigned s = 0; s < ranges_.size(); ++s)
        if (layout_.device_of(s) == device) pairs += plans_[s].pairs;
      const SelectedGpu gpu(device, "build");
      check_fits(needed.at(device), pairs, options.gpu);
    }
    const std::uint64_t capacity = kernels::max_pairs_of_windows(
        max_batch_windows(options.gpu.batch_bases, params_), params_);
    for (const int device : layout_.devices)
      sketchers_.push_back(std::make_unique<Sketcher>(device, options.gpu.batch_bases, capacity));
    const auto kind = options.gpu.table == BuildTable::bucket_list
                          ? kernels::BuildTableKind::bucket_list
                          : kernels::BuildTableKind::multi_value;
    try {
      table_.emplace(kind, shards);
    } catch (const std::exception& e) {
      throw std::runtime_error("the GPU build over " + describe(layout_) +
                               " could not set up its shards' tables and exchange (" + e.what() +
                               "); use one GPU (--gpus 1), or --device cpu");
    }
    exchange_ = table_->exchange_name();
    for (const auto& sketcher : sketchers_) sketcher->stream.synchronize();
    // Both sides' pair buffers free; the round thread inserts the rounds in
    // the order submitted and hands each side back once its insert is done.
    free_sides_.push(0);
    free_sides_.push(1);
    round_thread_.emplace();
    round_thread_->on_stop([this] {
      submitted_.cancel();
      free_sides_.cancel();
    });
    round_thread_->spawn([this] {
      int side = 0;
      while (submitted_.pop(side)) {
        run_round(side);
        free_sides_.push(side);
      }
    });
  }

  // Packs the target into the current GPU's batch of the round being
  // filled; a full batch passes the turn to the next GPU, and once every GPU
  // has one the round is started.
  void add(TargetSequence sequence) override {
    const SharedTarget target(std::move(sequence));
    for (std::uint64_t w0 = 0; w0 < target.windows;) {
      const std::uint64_t next = pack_windows(filling(), target, w0, params_, copier_);
      if (next == w0 && ++gpu_ == sketchers_.size()) submit_round();
      w0 = next;
    }
  }

  void flush() override {
    if (gpu_ > 0 || filling().windows > 0) submit_round();
    const auto start = std::chrono::steady_clock::now();
    submitted_.close();
    round_thread_->join();  // every round inserted; a round's failure rethrown
    times_.wait += host::seconds_since(start);
  }

  // Every shard's pairs exported (its table's and the sentinel spills of its
  // range), the tables freed, then the shards finalized; both side by side,
  // one host thread each on its GPU, each index left there: the index is
  // their concatenation in range order (device_index.hpp).
  BuiltIndex finalize() override {
    host::Stopwatch clock;
    const unsigned shards = layout_.shards();
    for (unsigned s = 0; s < shards; ++s)
      check_table_status(table_->pop_status(s), plans_[s].pairs, options_.gpu);
    std::vector<db::Entry> spilled;
    for (const auto& sketcher : sketchers_) {
      sketcher->device.select();
      for (const db::Entry& e : sketcher->spill.read(sketcher->stream)) spilled.push_back(e);
    }
    // Side by side, a host thread and a stream each: every shard's export
    // waits for its GPU.
    std::vector<ExportedPairs> exported(shards);
    host::parallel_for(shards, shards, [&](std::size_t shard) {
      const unsigned s = unsigned(shard);
      sketcher_of(s).device.select();
      const cuda::stream stream;
      std::vector<db::Entry> mine;
      std::copy_if(spilled.begin(), spilled.end(), std::back_inserter(mine),
                   [&](const db::Entry& e) { return ranges_[s].contains(e.feature); });
      exported[s] = export_pairs(
          table_->size(s),
          [&](feature_t* f, std::uint64_t* l) { return table_->retrieve_all(s, f, l, stream); },
          mine, stream);
    });
    table_.reset();  // free the tables before the finalize needs their memory
    times_.export_ = clock.lap();
    std::vector<DeviceIndex::Shard> parts(shards);
    std::vector<FinalizeTimes> times(shards);
    host::parallel_for(shards, shards, [&](std::size_t s) {
      const Sketcher& on = sketcher_of(unsigned(s));
      on.device.select();
      const cuda::stream stream;
      parts[s].device = on.device.device();
      parts[s].index = finalize_on_gpu(std::move(exported[s]), options_.params.cap_rule(), stream,
                                       times[s]);
    });
    for (const FinalizeTimes& t : times) times_.finalize.gpu = std::max(times_.finalize.gpu, t.gpu);
    times_.finalize_all = clock.lap();
    return BuiltIndex(std::make_unique<DeviceIndex>(std::move(parts), options_.gpu.staging_bytes));
  }

  std::string stages() const override {
    double table_bytes = 0;
    for (const MemoryPlan& plan : plans_) table_bytes += double(plan.table_bytes);
    std::string kernel_times;  // each GPU's, in layout order
    for (const auto& sketcher : sketchers_) {
      char gpu[32];
      std::snprintf(gpu, sizeof gpu, "%s%.2f", kernel_times.empty() ? "" : " / ",
                    sketcher->kernel_seconds);
      kernel_times += gpu;
    }
    char line[900];
    std::snprintf(line, sizeof line,
                  "GPUs: %u shards over %s, exchange %s; tables %.2f GiB; %llu rounds (the "
                  "sketches waited for %.2f s, exchange and insert %.2f s; sketch+insert on the "
                  "GPUs %s s), waiting for the GPUs "
                  "while reading %.2f s, for the %u copy threads %.2f s; finalize: table export "
                  "%.2f s, shards side by side %.2f s (slowest shard: sort+cap on the GPU %.2f "
                  "s), the index left on the GPUs",
                  layout_.shards(), describe(layout_).c_str(), exchange_.c_str(),
                  table_bytes / gib, (unsigned long long)rounds_, times_.round_sketch,
                  times_.round_insert, kernel_times.c_str(), times_.wait, copier_.threads(),
                  times_.copies,
                  times_.export_,
                  times_.finalize_all, times_.finalize.gpu);
    return line;
  }

 private:
  HostBatch& filling() { return sketchers_[gpu_]->host[side_]; }
  Sketcher& sketcher_of(unsigned shard) { return *sketchers_[shard / layout_.shards_per_gpu]; }
  unsigned first_shard_of(std::size_t gpu) const { return unsigned(gpu) * layout_.shards_per_gpu; }

  // Starts the round of the batches on side_ and turns to the other side
  // for the next. Each GPU's upload and sketch are queued at once: the
  // upload after the sketch of the side's previous round (which read the
  // side's batch on the GPU), the sketch once the side's previous round is
  // inserted (its pair buffers free); the round thread then exchanges and
  // inserts the pairs, after the round before. So the driver packs the next
  // round while this one is uploaded and sketched and the one before is
  // inserted, and waits only when both sides are busy.
  void submit_round() {
    const int side = side_;
    for (const auto& sketcher : sketchers_) wait_for_copies(sketcher->host[side], times_.copies);
    for (const auto& sketcher : sketchers_) {
      Sketcher& g = *sketcher;
      if (g.host[side].windows == 0) continue;
      g.device.select();
      cuda::check(cudaStreamWaitEvent(g.upload_stream, g.sketched[side].get(), 0),
                  "ordering a build batch's upload after the previous sketch");
      g.view[side] = g.batch[side].upload(g.host[side], g.upload_stream);
      g.uploaded[side].record(g.upload_stream);
    }
    const auto start = std::chrono::steady_clock::now();
    int free = -1;
    if (!free_sides_.pop(free)) round_failed();
    times_.wait += host::seconds_since(start);
    if (free != side) throw std::logic_error("build rounds handed back out of order");
    queue_sketches(side);
    if (!submitted_.push(side)) round_failed();
    ++rounds_;
    side_ ^= 1;
    gpu_ = 0;
    // The other side's host batches, read by its last upload, are packed again.
    const auto uploads = std::chrono::steady_clock::now();
    for (const auto& sketcher : sketchers_) {
      sketcher->uploaded[side_].synchronize();
      sketcher->host[side_].clear();
    }
    times_.wait += host::seconds_since(uploads);
  }

  // The round thread stopped: its failure (or a logic error, if none).
  [[noreturn]] void round_failed() {
    round_thread_->join();
    throw std::logic_error("the build's round thread stopped without an error");
  }

  // Every GPU sketches its uploaded batch (after the upload), inserts the
  // features of its first shard in place and writes the other shards' pairs
  // to the pair buffers of `side`; their count comes back to the host.
  void queue_sketches(int side) {
    for (std::size_t i = 0; i < sketchers_.size(); ++i) {
      Sketcher& g = *sketchers_[i];
      PairSlot& pairs = g.pairs[side];
      g.device.select();
      pairs.count.fill_bytes(0, g.stream);
      pairs.timed = g.host[side].windows > 0;
      if (pairs.timed) {
        cuda::check(cudaStreamWaitEvent(g.stream, g.uploaded[side].get(), 0),
                    "ordering a build batch's sketch after its upload");
        pairs.kernel_started.record(g.stream);
        table_->sketch_insert(first_shard_of(i), g.view[side], params_, options_.features,
                              pairs.view(), g.spill.view(), g.stream);
        pairs.kernel_done.record(g.stream);
        g.sketched[side].record(g.stream);
      }
      pairs.count.copy_to_host(pairs.sketched.data(), 1, g.stream);
      pairs.counted.record(g.stream);
    }
  }

  // On the round thread: once every GPU's sketch is done, one exchange
  // sends each of the pairs it left to the shard owning its feature (a
  // GPU's pairs start from its first shard). Its inserts may run beside the
  // next round's kernels, which insert into the same tables: the tables'
  // inserts are atomic, and a database does not depend on their order.
  void run_round(int side) {
    host::Stopwatch clock;
    std::vector<kernels::ShardPairs> batches(layout_.shards());
    for (std::size_t i = 0; i < sketchers_.size(); ++i) {
      Sketcher& g = *sketchers_[i];
      const PairSlot& pairs = g.pairs[side];
      g.device.select();
      cuda::check(cudaEventSynchronize(pairs.counted.get()), "sketching a build batch");
      if (pairs.timed)
        g.kernel_seconds += pairs.kernel_done.elapsed_ms_since(pairs.kernel_started) * 1e-3;
      const std::uint64_t n = pairs.sketched[0];
      if (n > pairs.features.size())
        throw std::logic_error("a build batch gave more pairs than its bound");
      batches[first_shard_of(i)] =
          kernels::ShardPairs{pairs.features.data(), pairs.locations.data(), n};
    }
    times_.round_sketch += clock.lap();
    try {
      table_->insert_from_shards(batches);
    } catch (const std::exception& e) {
      throw std::runtime_error("the exchange of sketched pairs between the shards (" + exchange_ +
                               " over " + describe(layout_) + ") failed: " + e.what() +
                               "; use one GPU (--gpus 1), or --device cpu");
    }
    times_.round_insert += clock.lap();
  }

  // The time the executor's stages took, for its summary line.
  struct Times {
    double wait = 0;          // the driver waiting for a side's round (inserted, uploaded)
    double copies = 0;        // the driver waiting for the copies into a round's batches
    double round_sketch = 0;  // the round thread waiting for the sketches (and uploads)
    double round_insert = 0;  // the round thread in the exchanges and inserts
    double export_ = 0;       // tables' pairs out, tables freed
    double finalize_all = 0;  // the shards' finalizes, side by side
    FinalizeTimes finalize;   // the slowest shard's
  };

  const BuildOptions options_;
  const sketch::SketchParams params_;
  const ShardLayout layout_;
  const std::vector<index::FeatureRange> ranges_;  // shard s keeps ranges_[s]
  std::vector<MemoryPlan> plans_;                  // shard s's table
  std::vector<std::unique_ptr<Sketcher>> sketchers_;  // one per GPU, in layout order
  // After the sketchers: a copy still queued into their batches is done before they go.
  host::CopyPool copier_;
  std::optional<kernels::ShardedBuildTable> table_;
  std::string exchange_;
  std::size_t gpu_ = 0;  // the GPU whose batch of the filling round is being packed
  int side_ = 0;         // which host batch of every GPU the filling round uses
  std::uint64_t rounds_ = 0;
  Times times_;  // round_sketch and round_insert: the round thread's, read after its join
  host::Channel<int> submitted_{2};   // sides of the rounds sketched, to insert in order
  host::Channel<int> free_sides_{2};  // sides whose round is inserted
  // Last: stopped (the channels cancelled) and joined before the rest goes.
  std::optional<host::ThreadGroup> round_thread_;
};

}  // namespace

std::unique_ptr<BuildExecutor> make_multi_gpu_build_executor(const BuildOptions& options,
                                                             const BuildInputs& inputs) {
  return std::make_unique<MultiGpuBuildExecutor>(options, inputs);
}

}  // namespace metawarp::pipeline::gpu
