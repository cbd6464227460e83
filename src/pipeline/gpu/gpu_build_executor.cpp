// The GPU build executor of one GPU. Targets arrive in target-id order from
// the driver; their bases are packed into pinned batches; a copy stream
// uploads batch i+1 while the kernel stream runs the fused sketch+insert
// kernel on batch i. At the end the table's pairs are exported and finalized
// on the GPU (build_finalize.hpp), so the database is byte-identical to the
// CPU executor's; the index stays on the GPU for the driver (device_index.hpp).
// Several shards: the multi-GPU executor (multi_gpu_build_executor.hpp).
#include <chrono>
#include <cstdio>
#include <optional>

#include "kernels/build_table.hpp"
#include "metawarp/cuda/event.hpp"
#include "metawarp/cuda/stream.hpp"
#include "metawarp/host/clock.hpp"
#include "metawarp/host/copy_pool.hpp"
#include "pipeline/build/build_estimate.hpp"
#include "pipeline/build/build_executor.hpp"
#include "pipeline/gpu/build_batches.hpp"
#include "pipeline/gpu/build_finalize.hpp"
#include "pipeline/gpu/build_memory_plan.hpp"
#include "pipeline/gpu/device_index.hpp"
#include "pipeline/gpu/multi_gpu_build_executor.hpp"
#include "pipeline/gpu/selected_gpu.hpp"

namespace metawarp::pipeline {
namespace {

using sketch::feature_t;

constexpr double gib = 1024.0 * 1024.0 * 1024.0;

// Two batch slots: while the GPU works on one, the host fills the other.
struct BatchSlot {
  gpu::HostBatch host;
  gpu::DeviceBatch device;
  // Timed: the GPU's own time for the upload and the kernel, for -v.
  cuda::event upload_started, uploaded, kernel_started, done;
  bool in_flight = false;

  explicit BatchSlot(std::uint64_t batch_bases) : host(batch_bases), device(batch_bases) {}
};

class GpuBuildExecutor final : public BuildExecutor {
 public:
  GpuBuildExecutor(const BuildOptions& options, const BuildInputs& inputs)
      : device_(options.gpu.device, "build"),
        options_(options),
        params_(options.params.sketch),
        range_(options.features),
        copier_(gpu::copy_threads(options.threads)) {
    gpu::check_batch_size(options.gpu.batch_bases, params_);
    const std::uint64_t all_pairs = options.gpu.table_capacity != 0
                                        ? options.gpu.table_capacity
                                        : estimate_pairs(inputs.files, params_);
    plan_ = gpu::plan_memory(options.gpu, pairs_in_range(all_pairs, range_, params_));
    gpu::check_fits(plan_.peak_bytes, plan_.pairs, options.gpu);
    const auto kind = options.gpu.table == BuildTable::bucket_list
                          ? kernels::BuildTableKind::bucket_list
                          : kernels::BuildTableKind::multi_value;
    table_.emplace(kind, plan_.slots, plan_.pool_words, kernel_stream_);
    for (auto& slot : slots_) slot.emplace(options.gpu.batch_bases);
    spill_.emplace(kernel_stream_);
    cuda::check(cudaStreamSynchronize(kernel_stream_), "setting up the GPU table");
  }

  void add(TargetSequence sequence) override {
    const gpu::SharedTarget target(std::move(sequence));
    for (std::uint64_t w0 = 0; w0 < target.windows;) {
      const std::uint64_t next = gpu::pack_windows(current().host, target, w0, params_, copier_);
      if (next == w0) submit();  // full: the rest goes to the other slot
      w0 = next;
    }
  }

  void flush() override {
    device_.select();
    submit();
    for (auto& slot : slots_) wait_for(*slot);
    cuda::check(cudaStreamSynchronize(kernel_stream_), "waiting for the build kernels");
  }

  // Exports the table's pairs (plus the sentinel spill), frees the table and
  // finalizes on the GPU, leaving the query layout there.
  BuiltIndex finalize() override {
    device_.select();
    host::Stopwatch clock;
    gpu::check_table_status(table_->pop_status(kernel_stream_), plan_.pairs, options_.gpu);
    gpu::ExportedPairs pairs = gpu::export_pairs(
        table_->size(kernel_stream_),
        [this](feature_t* f, std::uint64_t* l) { return table_->retrieve_all(f, l, kernel_stream_); },
        spill_->read(kernel_stream_), kernel_stream_);
    table_.reset();  // free the table before the finalize needs its memory
    times_.export_ = clock.lap();
    std::vector<gpu::DeviceIndex::Shard> shards(1);
    shards[0].device = device_.device();
    shards[0].index = gpu::finalize_on_gpu(std::move(pairs), options_.params.cap_rule(),
                                           kernel_stream_, times_.finalize);
    return BuiltIndex(std::make_unique<gpu::DeviceIndex>(std::move(shards),
                                                         options_.gpu.staging_bytes));
  }

  std::string stages() const override {
    char line[512];
    std::snprintf(line, sizeof line,
                  "GPU: table %.2f GiB; uploads %.2f s and sketch+insert %.2f s on the GPU; "
                  "waiting for the GPU while reading %.2f s, for the %u copy threads %.2f s; "
                  "finalize: table export %.2f s, sort+cap on the GPU %.2f s, the index left there",
                  double(plan_.table_bytes) / gib, times_.upload, times_.kernel, times_.wait,
                  copier_.threads(), times_.copies,
                  times_.export_,
                  times_.finalize.gpu);
    return line;
  }

 private:
  BatchSlot& current() { return *slots_[current_]; }

  // Uploads and processes the current batch and switches to the other slot.
  void submit() {
    device_.select();
    BatchSlot& slot = current();
    wait_for_copies(slot.host, times_.copies);  // its bases all in before the upload reads them
    if (slot.host.windows > 0) {
      slot.upload_started.record(copy_stream_);
      const kernels::BatchView batch = slot.device.upload(slot.host, copy_stream_);
      slot.uploaded.record(copy_stream_);
      cuda::check(cudaStreamWaitEvent(kernel_stream_, slot.uploaded.get(), 0),
                  "ordering the build kernel after its upload");
      slot.kernel_started.record(kernel_stream_);
      table_->sketch_insert(batch, params_, range_, spill_->view(), kernel_stream_);
      slot.done.record(kernel_stream_);
      slot.in_flight = true;
    }
    current_ ^= 1;
    wait_for(current());  // the next slot's buffers are reused only once its batch is done
    current().host.clear();
  }

  void wait_for(BatchSlot& slot) {
    if (!slot.in_flight) return;
    const auto start = std::chrono::steady_clock::now();
    slot.done.synchronize();
    times_.wait += host::seconds_since(start);
    times_.upload += slot.uploaded.elapsed_ms_since(slot.upload_started) * 1e-3;
    times_.kernel += slot.done.elapsed_ms_since(slot.kernel_started) * 1e-3;
    slot.in_flight = false;
  }

  // The time the executor's stages took, for its summary line.
  struct Times {
    double wait = 0;     // the host waiting for the GPU while reading
    double copies = 0;   // the host waiting for the copies into a batch it submits
    double upload = 0;   // the GPU's: uploads (beside the kernels)
    double kernel = 0;   // the GPU's: sketch+insert kernels
    double export_ = 0;  // table pairs out, table freed
    gpu::FinalizeTimes finalize;
  };

  gpu::SelectedGpu device_;  // first: everything below lives on that GPU
  const BuildOptions options_;
  const sketch::SketchParams params_;
  const index::FeatureRange range_;  // the features this executor keeps
  gpu::MemoryPlan plan_;
  // One stream orders table setup, build kernels, export and finalize;
  // uploads run on a stream of their own.
  cuda::stream kernel_stream_;
  cuda::stream copy_stream_;
  std::optional<kernels::BuildTable> table_;
  std::optional<BatchSlot> slots_[2];
  int current_ = 0;
  // After the slots: a copy still queued into them is done before they go.
  host::CopyPool copier_;
  std::optional<gpu::SpillBuffers> spill_;
  Times times_;
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
  return gpu::make_multi_gpu_build_executor(options, inputs);
}

}  // namespace metawarp::pipeline
