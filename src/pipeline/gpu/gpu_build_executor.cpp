// The GPU build executor. Targets arrive in target-id order from the driver;
// their bases are packed into pinned batches; a copy stream uploads batch i+1
// while the kernel stream runs the fused sketch+insert kernel on batch i. At
// the end the table's pairs are exported and finalized on the GPU by the cap
// rule the CPU finalize applies too, and the query layout is downloaded, so
// the database is byte-identical to the CPU executor's.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <stdexcept>

#include "kernels/build_table.hpp"
#include "kernels/finalize.hpp"
#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/cuda/event.hpp"
#include "metawarp/cuda/pinned_buffer.hpp"
#include "metawarp/cuda/stream.hpp"
#include "metawarp/host/clock.hpp"
#include "metawarp/host/large_vector.hpp"
#include "metawarp/sketch/sketch.hpp"
#include "pipeline/build/build_executor.hpp"
#include "pipeline/build/build_estimate.hpp"
#include "pipeline/gpu/build_memory_plan.hpp"
#include "pipeline/gpu/staged_copy.hpp"
#include "pipeline/gpu/selected_gpu.hpp"
#include "pipeline/build/sharded_build_executor.hpp"

namespace metawarp::pipeline {
namespace {

using kernels::BatchSegment;
using sketch::feature_t;

constexpr std::uint64_t spill_capacity = 1u << 20;
constexpr std::uint32_t max_segments = 1u << 16;
constexpr double gib = 1024.0 * 1024.0 * 1024.0;

// Two batch slots: while the GPU works on one, the host fills the other.
struct BatchSlot {
  cuda::pinned_buffer<char> host_bases;
  cuda::pinned_buffer<BatchSegment> host_segments;
  cuda::device_buffer<char> bases;
  cuda::device_buffer<BatchSegment> segments;
  cuda::event uploaded, done;
  std::uint64_t used = 0;
  std::uint64_t windows = 0;
  std::uint32_t segment_count = 0;
  bool in_flight = false;

  explicit BatchSlot(std::uint64_t batch_bases)
      : host_bases(batch_bases), host_segments(max_segments), bases(batch_bases),
        segments(max_segments) {}
};

std::string describe(tables::Status status) {
  std::string out;
  for (tables::Status::bits_type bit = 1; bit != 0; bit <<= 1)
    if (status.bits() & bit) out += std::string(out.empty() ? "" : "|") + tables::status_flag_name(bit);
  return out;
}

// The time the executor's stages took, for its summary line.
struct GpuTimes {
  double wait = 0;      // the host waiting for the GPU while reading
  double export_ = 0;   // table pairs out, table freed
  double gpu = 0;       // sort, cap rule, compaction on the GPU
  double download = 0;  // the query layout to the host
  double index = 0;     // FeatureIndex on the host
};

class GpuBuildExecutor final : public BuildExecutor {
 public:
  GpuBuildExecutor(const BuildOptions& options, const BuildInputs& inputs)
      : device_(options.gpu.device, "build"),
        options_(options),
        params_(options.params.sketch),
        range_(options.features),
        batch_bases_(options.gpu.batch_bases) {
    if (batch_bases_ < std::uint64_t(params_.window) + params_.k + 2 * context_bases())
      throw std::runtime_error("--batch-size must hold at least one window and its context");
    // The table holds this executor's share of the pairs (its feature range).
    const std::uint64_t all_pairs = options.gpu.table_capacity != 0
                                        ? options.gpu.table_capacity
                                        : estimate_pairs(inputs.files, params_);
    plan_ = gpu::plan_memory(options.gpu, pairs_in_range(all_pairs, range_, params_));
    gpu::check_fits(plan_, options.gpu);
    const auto kind = options.gpu.table == BuildTable::bucket_list
                          ? kernels::BuildTableKind::bucket_list
                          : kernels::BuildTableKind::multi_value;
    table_.emplace(kind, plan_.slots, plan_.pool_words, kernel_stream_);
    for (auto& slot : slots_) slot.emplace(batch_bases_);
    spill_count_.fill_bytes(0, kernel_stream_);
    cuda::check(cudaStreamSynchronize(kernel_stream_), "setting up the GPU table");
  }

  // Appends a target's windows, cutting it at window boundaries across
  // batches; each piece carries the bases its windows' sketches read
  // (sketch::window_bases: their own and their context).
  void add(TargetSequence target) override {
    const std::string& seq = target.sequence;
    const std::uint64_t stride = params_.stride();
    // At most this many bases of a piece beyond count * stride.
    const std::uint64_t overhead = params_.k - 1 + 2 * context_bases();
    for (std::uint64_t w0 = 0; w0 < target.windows;) {
      BatchSlot& slot = current();
      const std::uint64_t room = batch_bases_ - slot.used;
      const std::uint64_t fit = room >= overhead + stride ? (room - overhead) / stride : 0;
      if (fit == 0 || slot.segment_count == max_segments) {
        submit();
        continue;
      }
      const std::uint64_t count = std::min(fit, target.windows - w0);
      const sketch::BaseRange bases = sketch::window_bases(seq.size(), w0, w0 + count, params_);
      const std::uint64_t length = bases.end - bases.begin;
      std::copy_n(seq.data() + bases.begin, length, slot.host_bases.data() + slot.used);
      slot.host_segments[slot.segment_count++] =
          BatchSegment{slot.used, bases.begin, seq.size(), slot.windows, target.target,
                       sketch::window_id_t(w0)};
      slot.used += length;
      slot.windows += count;
      w0 += count;
    }
  }

  void flush() override {
    device_.select();
    submit();
    for (auto& slot : slots_) wait_for(*slot);
    cuda::check(cudaStreamSynchronize(kernel_stream_), "waiting for the build kernels");
  }

  // Exports the table's pairs (plus the sentinel spill), frees the table,
  // finalizes on the GPU and downloads the query layout.
  db::FeatureIndex finalize() override {
    device_.select();
    host::Stopwatch clock;
    const tables::Status status = table_->pop_status(kernel_stream_);
    if (status.has_error()) {
      const std::string what = "the GPU table ran out of room (" + describe(status) +
                               ") with a capacity of " + std::to_string(plan_.pairs) +
                               " (feature, location) pairs: its features hold more than estimated";
      if (options_.gpu.table_capacity == 0) throw PartitionTooLarge(what);
      throw std::runtime_error(what + "; set --table-capacity larger, or use --device cpu");
    }
    const std::uint64_t stored = table_->size(kernel_stream_);
    const std::vector<db::Entry> spilled = spilled_pairs();
    const std::uint64_t total = stored + spilled.size();
    cuda::device_buffer<feature_t> features(total);
    cuda::device_buffer<std::uint64_t> locations(total);
    if (table_->retrieve_all(features.data(), locations.data(), kernel_stream_) != stored)
      throw std::runtime_error("GPU table export lost pairs");
    std::vector<feature_t> spill_features;
    std::vector<std::uint64_t> spill_locations;
    for (const auto& e : spilled) {
      spill_features.push_back(e.feature);
      spill_locations.push_back(e.location.packed());
    }
    cuda::check(cudaMemcpyAsync(features.data() + stored, spill_features.data(),
                                spill_features.size() * sizeof(feature_t), cudaMemcpyHostToDevice,
                                kernel_stream_), "uploading the sentinel spill");
    cuda::check(cudaMemcpyAsync(locations.data() + stored, spill_locations.data(),
                                spill_locations.size() * sizeof(std::uint64_t),
                                cudaMemcpyHostToDevice, kernel_stream_),
                "uploading the sentinel spill");
    cuda::check(cudaStreamSynchronize(kernel_stream_), "exporting the GPU table");
    table_.reset();  // free the table before the finalize needs its memory
    times_.export_ = clock.lap();

    kernels::FinalizedIndex finalized;
    try {
      finalized = kernels::finalize_pairs(std::move(features), std::move(locations), total,
                                          options_.params.cap_rule(), kernel_stream_);
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(std::string("GPU finalize of ") + std::to_string(total) +
                               " pairs failed (" + e.what() +
                               "); build with --device cpu or split the references");
    }
    times_.gpu = clock.lap();
    db::FeatureIndex index = download(finalized, clock);
    times_.index = clock.lap();
    return index;
  }

  std::string stages() const override {
    char line[512];
    std::snprintf(line, sizeof line,
                  "GPU: table %.2f GiB; waiting for the GPU while reading %.2f s; finalize: table "
                  "export %.2f s, sort+cap on the GPU %.2f s, download %.2f s, host index %.2f s",
                  double(plan_.table_bytes) / gib, times_.wait, times_.export_, times_.gpu,
                  times_.download, times_.index);
    return line;
  }

 private:
  BatchSlot& current() { return *slots_[current_]; }

  // The most bases a piece carries beyond either end of its windows.
  std::uint64_t context_bases() const { return sketch::context_kmers(params_); }

  // Uploads and processes the current batch and switches to the other slot.
  // On this executor's GPU (the driver's thread serves every shard's executor).
  void submit() {
    device_.select();
    BatchSlot& slot = current();
    if (slot.windows > 0) {
      slot.bases.copy_from_host(slot.host_bases.data(), slot.used, copy_stream_);
      slot.segments.copy_from_host(slot.host_segments.data(), slot.segment_count, copy_stream_);
      slot.uploaded.record(copy_stream_);
      cuda::check(cudaStreamWaitEvent(kernel_stream_, slot.uploaded.get(), 0),
                  "ordering the build kernel after its upload");
      const kernels::SentinelSpill spill{spill_count_.data(), spill_features_.data(),
                                         spill_locations_.data(), spill_capacity};
      table_->sketch_insert(
          kernels::BatchView{slot.bases.data(), slot.segments.data(), slot.segment_count,
                             slot.windows},
          params_, range_, spill, kernel_stream_);
      slot.done.record(kernel_stream_);
      slot.in_flight = true;
    }
    current_ ^= 1;
    wait_for(current());  // the next slot's buffers are reused only once its batch is done
    BatchSlot& next = current();
    next.used = next.windows = 0;
    next.segment_count = 0;
  }

  void wait_for(BatchSlot& slot) {
    if (!slot.in_flight) return;
    const auto start = std::chrono::steady_clock::now();
    slot.done.synchronize();
    times_.wait += host::seconds_since(start);
    slot.in_flight = false;
  }

  std::vector<db::Entry> spilled_pairs() {
    std::uint64_t count = 0;
    spill_count_.copy_to_host(&count, 1, kernel_stream_);
    cuda::check(cudaStreamSynchronize(kernel_stream_), "reading the sentinel spill count");
    if (count > spill_capacity)
      throw std::runtime_error("too many features equal to table sentinels (corrupt input?)");
    std::vector<feature_t> f(count);
    std::vector<std::uint64_t> l(count);
    spill_features_.copy_to_host(f.data(), count, kernel_stream_);
    spill_locations_.copy_to_host(l.data(), count, kernel_stream_);
    cuda::check(cudaStreamSynchronize(kernel_stream_), "reading the sentinel spill");
    std::vector<db::Entry> out;
    for (std::uint64_t i = 0; i < count; ++i)
      out.push_back(db::Entry{f[i], sketch::Location::unpack(l[i])});
    return out;
  }

  // The query layout to the host. Allocating gigabytes of host memory (page
  // faults, zeroing) costs more than the copies: the arrays are on huge
  // pages, faulted in by all cores (make_large_vector).
  db::FeatureIndex download(const kernels::FinalizedIndex& finalized, host::Stopwatch& clock) {
    if (finalized.feature_count == 0 && finalized.location_count == 0) {
      times_.download = clock.lap();
      return db::FeatureIndex();
    }
    auto features = host::make_large_vector<feature_t>(finalized.feature_count);
    auto offsets = host::make_large_vector<std::uint64_t>(finalized.feature_count + 1);
    auto locations = host::make_large_vector<sketch::Location>(finalized.location_count);
    static_assert(sizeof(sketch::Location) == sizeof(std::uint64_t));
    gpu::StagedCopy copy(kernel_stream_);
    copy.download(features.data(), finalized.features.data(),
                  features.size() * sizeof(feature_t), "downloading features");
    copy.download(offsets.data(), finalized.offsets.data(),
                  finalized.feature_count * sizeof(std::uint64_t), "downloading list offsets");
    copy.download(locations.data(), finalized.locations.data(),
                  locations.size() * sizeof(std::uint64_t), "downloading locations");
    offsets.back() = finalized.location_count;
    times_.download = clock.lap();
    return db::FeatureIndex(std::move(features), std::move(offsets), std::move(locations));
  }

  gpu::SelectedGpu device_;  // first: everything below lives on that GPU
  const BuildOptions options_;  // a copy: a shard's options are made for it alone
  const sketch::SketchParams params_;
  const index::FeatureRange range_;  // the features this executor keeps
  const std::uint64_t batch_bases_;
  gpu::MemoryPlan plan_;
  // One stream orders table setup, build kernels, export and finalize;
  // uploads run on a stream of their own.
  cuda::stream kernel_stream_;
  cuda::stream copy_stream_;
  std::optional<kernels::BuildTable> table_;
  std::optional<BatchSlot> slots_[2];
  int current_ = 0;
  cuda::device_buffer<std::uint64_t> spill_count_{1};
  cuda::device_buffer<feature_t> spill_features_{spill_capacity};
  cuda::device_buffer<std::uint64_t> spill_locations_{spill_capacity};
  GpuTimes times_;
};

}  // namespace

std::unique_ptr<BuildExecutor> make_gpu_build_executor(const BuildOptions& options,
                                                       const BuildInputs& inputs) {
  const ShardLayout& layout = options.gpu.layout;
  if (!options.gpu.layout_given) return std::make_unique<GpuBuildExecutor>(options, inputs);
  if (layout.single()) {
    BuildOptions one = options;
    one.gpu.device = layout.devices.front();
    return std::make_unique<GpuBuildExecutor>(one, inputs);
  }
  // One executor per shard, each on its GPU with its feature range and a
  // table sized to that range's share.
  return make_sharded_build_executor(
      options, inputs, layout.shards(),
      [&layout](BuildOptions shard, const BuildInputs& in, unsigned s) {
        shard.gpu.device = layout.device_of(s);
        return std::unique_ptr<BuildExecutor>(std::make_unique<GpuBuildExecutor>(shard, in));
      });
}

}  // namespace metawarp::pipeline
