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
#include "kernels/sketch_pairs.hpp"
#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/cuda/pinned_buffer.hpp"
#include "metawarp/cuda/stream.hpp"
#include "metawarp/host/background_task.hpp"
#include "metawarp/host/clock.hpp"
#include "metawarp/host/copy_pool.hpp"
#include "metawarp/host/parallel_for.hpp"
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

// What one GPU of the layout holds: two host batches (the driver packs one
// while a round uploads the other), the batch on the GPU and the buffer its
// sketch writes the pairs to.
struct Sketcher {
  SelectedGpu device;  // first: everything below lives on that GPU
  cuda::stream stream;
  HostBatch host[2];
  DeviceBatch batch;
  cuda::device_buffer<std::uint64_t> pair_count{1};
  cuda::device_buffer<feature_t> features;
  cuda::device_buffer<std::uint64_t> locations;
  cuda::pinned_buffer<std::uint64_t> pairs_sketched{1};
  SpillBuffers spill;

  Sketcher(int gpu, std::uint64_t batch_bases, std::uint64_t pair_capacity)
      : device(gpu, "build"),
        host{HostBatch(batch_bases), HostBatch(batch_bases)},
        batch(batch_bases),
        features(pair_capacity),
        locations(pair_capacity),
        spill(stream) {}

  kernels::PairBuffer pairs() const {
    return kernels::PairBuffer{pair_count.data(), features.data(), locations.data(),
                               features.size()};
  }
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
    wait_for_round();
  }

  // Every shard's pairs exported (its table's and the sentinel spills of its
  // range), the tables freed, then the shards finalized side by side, one
  // host thread each on its GPU, each left there: the index is their
  // concatenation in range order (device_index.hpp).
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
    std::vector<ExportedPairs> exported;
    for (unsigned s = 0; s < shards; ++s) {
      Sketcher& on = sketcher_of(s);
      on.device.select();
      std::vector<db::Entry> mine;
      std::copy_if(spilled.begin(), spilled.end(), std::back_inserter(mine),
                   [&](const db::Entry& e) { return ranges_[s].contains(e.feature); });
      exported.push_back(export_pairs(
          table_->size(s),
          [&](feature_t* f, std::uint64_t* l) { return table_->retrieve_all(s, f, l, on.stream); },
          mine, on.stream));
    }
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
    char line[640];
    std::snprintf(line, sizeof line,
                  "GPUs: %u shards over %s, exchange %s; tables %.2f GiB; %llu rounds, waiting "
                  "for the GPUs while reading %.2f s, for the %u copy threads %.2f s; finalize: "
                  "table export %.2f s, shards side by side %.2f s (slowest shard: sort+cap on "
                  "the GPU %.2f s), the index left on the GPUs",
                  layout_.shards(), describe(layout_).c_str(), exchange_.c_str(),
                  table_bytes / gib, (unsigned long long)rounds_, times_.wait, copier_.threads(),
                  times_.copies, times_.export_,
                  times_.finalize_all, times_.finalize.gpu);
    return line;
  }

 private:
  HostBatch& filling() { return sketchers_[gpu_]->host[side_]; }
  Sketcher& sketcher_of(unsigned shard) { return *sketchers_[shard / layout_.shards_per_gpu]; }

  // Starts the round of the batches on side_ (after the previous round, on
  // the other side, is done) and turns to the other side for the next.
  void submit_round() {
    wait_for_round();
    const int side = side_;
    for (const auto& sketcher : sketchers_) wait_for_copies(sketcher->host[side], times_.copies);
    round_.start([this, side] { run_round(side); });
    ++rounds_;
    side_ ^= 1;
    gpu_ = 0;
    for (const auto& sketcher : sketchers_) sketcher->host[side_].clear();
  }

  void wait_for_round() {
    const auto start = std::chrono::steady_clock::now();
    round_.wait();
    times_.wait += host::seconds_since(start);
  }

  // On the round's thread: every GPU uploads and sketches its batch, then
  // one exchange sends each pair to the shard owning its feature (a GPU's
  // pairs start from its first shard).
  void run_round(int side) {
    for (const auto& sketcher : sketchers_) {
      Sketcher& g = *sketcher;
      g.device.select();
      g.pair_count.fill_bytes(0, g.stream);
      if (g.host[side].windows > 0)
        kernels::sketch_pairs(g.batch.upload(g.host[side], g.stream), params_, options_.features,
                              g.pairs(), g.spill.view(), g.stream);
      g.pair_count.copy_to_host(g.pairs_sketched.data(), 1, g.stream);
    }
    std::vector<kernels::ShardPairs> batches(layout_.shards());
    for (std::size_t i = 0; i < sketchers_.size(); ++i) {
      Sketcher& g = *sketchers_[i];
      g.device.select();
      cuda::check(cudaStreamSynchronize(g.stream), "sketching a build batch");
      const std::uint64_t n = g.pairs_sketched[0];
      if (n > g.features.size())
        throw std::logic_error("a build batch gave more pairs than its bound");
      batches[i * layout_.shards_per_gpu] = kernels::ShardPairs{g.features.data(), g.locations.data(), n};
    }
    try {
      table_->insert_from_shards(batches);
    } catch (const std::exception& e) {
      throw std::runtime_error("the exchange of sketched pairs between the shards (" + exchange_ +
                               " over " + describe(layout_) + ") failed: " + e.what() +
                               "; use one GPU (--gpus 1), or --device cpu");
    }
  }

  // The time the executor's stages took, for its summary line.
  struct Times {
    double wait = 0;          // the driver waiting for rounds while reading
    double copies = 0;        // the driver waiting for the copies into a round's batches
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
  Times times_;
  host::BackgroundTask round_;  // last: a round still running is joined before the rest goes
};

}  // namespace

std::unique_ptr<BuildExecutor> make_multi_gpu_build_executor(const BuildOptions& options,
                                                             const BuildInputs& inputs) {
  return std::make_unique<MultiGpuBuildExecutor>(options, inputs);
}

}  // namespace metawarp::pipeline::gpu
