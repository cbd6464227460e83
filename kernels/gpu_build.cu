// The GPU build executor. Records stream in target-id order from the ordered
// reader (the same one the CPU executor uses); their bases are packed into
// pinned batches; a copy stream uploads batch i+1 while the kernel stream runs
// the fused sketch+insert kernel on batch i. At the end the table's pairs are
// exported, sorted on the GPU and finalized by the same db::finalize as the
// CPU path, so the database is byte-identical.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <stdexcept>

#include "kernels/build_batch.hpp"
#include "kernels/gpu_finalize.cuh"
#include "kernels/sketch_insert.cuh"
#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/cuda/event.hpp"
#include "metawarp/cuda/pinned_buffer.hpp"
#include "metawarp/cuda/stream.hpp"
#include "metawarp/tables/bucket_list_table.cuh"
#include "metawarp/tables/multi_value_table.cuh"
#include "pipeline/build_steps.hpp"
#include "pipeline/gpu_backend.hpp"

namespace metawarp::pipeline {

std::string gpu_unavailable_reason() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return std::string("no usable CUDA device (") + cudaGetErrorString(err) + ")";
  }
  if (count == 0) return "no CUDA device found";
  return {};
}

namespace {

using kernels::BatchSegment;
using sketch::feature_t;

constexpr double max_load_factor = 0.8;
constexpr std::uint64_t spill_capacity = 1u << 20;
constexpr double gib = 1024.0 * 1024.0 * 1024.0;

bool is_gzip(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char magic[2] = {0, 0};
  in.read(reinterpret_cast<char*>(magic), 2);
  return in.gcount() == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

// Upper estimate of the (feature, location) pairs the inputs produce: every
// window holds at most s features; compressed files are assumed to expand 5x
// (genomes compress about 3.5x with gzip). The user can override the result.
std::uint64_t estimate_pairs(const std::vector<std::string>& files, const sketch::SketchParams& p) {
  std::uint64_t bases = 0;
  for (const auto& f : files) {
    if (f == "-") continue;
    const std::uint64_t size = std::filesystem::file_size(f);
    bases += is_gzip(f) ? size * 5 : size;
  }
  const std::uint64_t windows = bases / p.stride() + files.size() * 64 + 1024;
  return windows * p.sketch_size;
}

// With the default growth (s_0 = 1, lambda = 1.1) short lists, the common
// case in a database, take up to two pool words per value.
std::uint64_t bucket_pool_words(std::uint64_t pairs) { return pairs * 5 / 2 + (1u << 20); }

struct MemoryPlan {
  std::uint64_t pairs = 0;       // table capacity in (feature, location) pairs
  std::uint64_t table_bytes = 0;
  std::uint64_t peak_bytes = 0;  // the larger of the two phases below
};

// Phase 1 holds the table, the batch buffers and, at its end, the exported
// pairs (12 bytes each). Phase 2 (the table is freed) is the finalize: about
// 20 bytes per pair plus 29 per distinct feature (gpu_finalize.cu); features
// are assumed to occur 4/3 times on average (measured: 1.7 on refs138, 2.4 on
// the synthetic sets), i.e. 0.75 distinct features per pair.
MemoryPlan plan_memory(const GpuBuildOptions& gpu, std::uint64_t pairs) {
  MemoryPlan plan;
  plan.pairs = pairs;
  const auto slots = std::uint64_t(double(pairs) / max_load_factor) + 1024;
  plan.table_bytes = slots * (sizeof(feature_t) + sizeof(std::uint64_t));
  if (gpu.table == BuildTable::bucket_list) plan.table_bytes += bucket_pool_words(pairs) * 8;
  const std::uint64_t batches = 2 * gpu.batch_bases + (std::uint64_t(64) << 20);
  const std::uint64_t exported = pairs * (sizeof(feature_t) + sizeof(std::uint64_t));
  const std::uint64_t finalize = pairs * 20 + pairs * 3 / 4 * 29;
  plan.peak_bytes = std::max(plan.table_bytes + batches + exported, finalize);
  return plan;
}

void check_fits(const MemoryPlan& plan, const GpuBuildOptions& gpu) {
  std::size_t free_bytes = 0, total_bytes = 0;
  cuda::check(cudaMemGetInfo(&free_bytes, &total_bytes), "querying free GPU memory");
  std::uint64_t available = std::uint64_t(double(free_bytes) * 0.95);
  if (gpu.memory_limit != 0) available = std::min<std::uint64_t>(available, gpu.memory_limit);
  if (plan.peak_bytes <= available) return;
  char msg[512];
  std::snprintf(msg, sizeof msg,
                "the GPU build needs about %.2f GiB of GPU memory for up to %llu (feature, "
                "location) pairs, but only %.2f GiB are available%s. Use --device cpu, split "
                "the references into several databases, or a GPU with more memory",
                double(plan.peak_bytes) / gib, (unsigned long long)plan.pairs,
                double(available) / gib, gpu.memory_limit ? " (--gpu-memory-limit)" : "");
  throw std::runtime_error(msg);
}

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

  BatchSlot(std::uint64_t batch_bases, std::uint32_t max_segments)
      : host_bases(batch_bases), host_segments(max_segments), bases(batch_bases),
        segments(max_segments) {}
};

template <class Table>
class GpuBuilder {
 public:
  // Kernels run on `kernel_stream` (the stream the table was cleared on);
  // uploads on a stream of the builder's own.
  GpuBuilder(Table& table, cudaStream_t kernel_stream, const sketch::SketchParams& params,
             const GpuBuildOptions& gpu)
      : table_(table), params_(params), batch_bases_(gpu.batch_bases), kernel_stream_(kernel_stream),
        spill_count_(1), spill_features_(spill_capacity), spill_locations_(spill_capacity) {
    if (batch_bases_ < std::uint64_t(params.window) + params.k)
      throw std::runtime_error("--batch-size must hold at least one window");
    for (int i = 0; i < 2; ++i) slots_.emplace_back(batch_bases_, max_segments);
    spill_count_.fill_bytes(0, kernel_stream_);
  }

  // Appends a target's windows, cutting it at window boundaries across batches.
  void add(const std::string& seq, sketch::target_id_t target, std::uint64_t windows) {
    const std::uint64_t stride = params_.stride();
    for (std::uint64_t w0 = 0; w0 < windows;) {
      BatchSlot& slot = current();
      const std::uint64_t room = batch_bases_ - slot.used;
      const std::uint64_t fit =
          room >= params_.k - 1 + stride ? (room - (params_.k - 1)) / stride : 0;
      if (fit == 0 || slot.segment_count == max_segments) {
        flush();
        continue;
      }
      const std::uint64_t count = std::min(fit, windows - w0);
      const std::uint64_t begin = w0 * stride;
      const std::uint64_t length = std::min<std::uint64_t>(seq.size() - begin,
                                                           count * stride + params_.k - 1);
      std::copy_n(seq.data() + begin, length, slot.host_bases.data() + slot.used);
      slot.host_segments[slot.segment_count++] =
          BatchSegment{slot.used, length, slot.windows, target, sketch::window_id_t(w0)};
      slot.used += length;
      slot.windows += count;
      w0 += count;
    }
  }

  // Uploads and processes the current batch and switches to the other slot.
  void flush() {
    BatchSlot& slot = current();
    if (slot.windows > 0) {
      slot.bases.copy_from_host(slot.host_bases.data(), slot.used, copy_stream_);
      slot.segments.copy_from_host(slot.host_segments.data(), slot.segment_count, copy_stream_);
      slot.uploaded.record(copy_stream_);
      cuda::check(cudaStreamWaitEvent(kernel_stream_, slot.uploaded.get(), 0),
                  "ordering the build kernel after its upload");
      const unsigned block = 256;
      const auto blocks = unsigned(std::min<std::uint64_t>((slot.windows + block - 1) / block,
                                                           std::uint64_t(1) << 20));
      kernels::SentinelSpill spill{spill_count_.data(), spill_features_.data(),
                                   spill_locations_.data(), spill_capacity};
      kernels::sketch_insert_kernel<<<blocks, block, 0, kernel_stream_>>>(
          slot.bases.data(), slot.segments.data(), slot.segment_count, slot.windows, params_,
          table_.ref(), spill);
      cuda::check_launch("sketch_insert_kernel");
      slot.done.record(kernel_stream_);
      slot.in_flight = true;
    }
    current_ ^= 1;
    wait_for(current());  // the next slot's buffers are reused only once its batch is done
    BatchSlot& next = current();
    next.used = next.windows = 0;
    next.segment_count = 0;
  }

  // Flushes the last batch and waits for the GPU; returns the seconds the host
  // spent waiting for the GPU overall.
  double finish() {
    flush();
    for (auto& slot : slots_) wait_for(slot);
    cuda::check(cudaStreamSynchronize(kernel_stream_), "waiting for the build kernels");
    return wait_seconds_;
  }

  std::vector<db::Entry> spilled() {
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

 private:
  static constexpr std::uint32_t max_segments = 1u << 16;

  BatchSlot& current() { return slots_[current_]; }

  void wait_for(BatchSlot& slot) {
    if (!slot.in_flight) return;
    const auto start = std::chrono::steady_clock::now();
    slot.done.synchronize();
    wait_seconds_ += seconds_since(start);
    slot.in_flight = false;
  }

  Table& table_;
  const sketch::SketchParams params_;
  const std::uint64_t batch_bases_;
  cudaStream_t kernel_stream_;
  cuda::stream copy_stream_;
  std::vector<BatchSlot> slots_;
  int current_ = 0;
  double wait_seconds_ = 0;
  cuda::device_buffer<std::uint64_t> spill_count_;
  cuda::device_buffer<feature_t> spill_features_;
  cuda::device_buffer<std::uint64_t> spill_locations_;
};

std::string describe(tables::Status status) {
  std::string out;
  for (tables::Status::bits_type bit = 1; bit != 0; bit <<= 1)
    if (status.bits() & bit) out += std::string(out.empty() ? "" : "|") + tables::status_flag_name(bit);
  return out;
}

// Streams the references through the table, then exports its pairs (plus the
// sentinel spill), frees it, and finalizes on the GPU. Fills the summary's
// GPU timings; returns the query layout.
template <class Table>
db::FeatureIndex run_gpu_build(std::optional<Table>& owned_table, const BuildOptions& options,
                               const BuildInputs& inputs, TargetCatalog& catalog,
                               ReadCounters& counters, BuildSummary& summary,
                               std::uint64_t capacity_pairs, cudaStream_t stream,
                               std::chrono::steady_clock::time_point setup_start) {
  const auto& params = options.params.sketch;
  Table& table = *owned_table;
  std::vector<db::Entry> spilled;
  {
    auto progress = build_progress(options, counters, inputs.files.size());
    GpuBuilder<Table> builder(table, stream, params, options.gpu);
    cuda::check(cudaStreamSynchronize(stream), "setting up the GPU table");
    summary.seconds_gpu_setup = seconds_since(setup_start);
    for_each_record_in_order(inputs.files, std::max(1u, options.threads), counters,
                             [&](io::SequenceRecord& record, std::size_t file) {
      const auto target = catalog.add(record, inputs.files[file], params);
      builder.add(record.sequence, target, catalog.targets.back().windows);
    });
    summary.seconds_gpu_wait = builder.finish();
    summary.seconds_read_overlapped = seconds_since(setup_start) - summary.seconds_gpu_setup;
    spilled = builder.spilled();
  }
  const tables::Status status = table.pop_status(stream);
  if (status.has_error())
    throw std::runtime_error(
        "the GPU table ran out of room (" + describe(status) + ") with a capacity of " +
        std::to_string(capacity_pairs) +
        " (feature, location) pairs: the references hold more features than estimated; set "
        "--table-capacity larger, or use --device cpu");
  const auto export_start = std::chrono::steady_clock::now();
  const std::uint64_t stored = table.size(stream);
  const std::uint64_t total = stored + spilled.size();
  cuda::device_buffer<feature_t> features(total);
  cuda::device_buffer<std::uint64_t> locations(total);
  const std::uint64_t exported = table.retrieve_all(features.data(), locations.data(), stream);
  if (exported != stored) throw std::runtime_error("GPU table export lost pairs");
  std::vector<feature_t> spill_features;
  std::vector<std::uint64_t> spill_locations;
  for (const auto& e : spilled) {
    spill_features.push_back(e.feature);
    spill_locations.push_back(e.location.packed());
  }
  cuda::check(cudaMemcpyAsync(features.data() + stored, spill_features.data(),
                              spill_features.size() * sizeof(feature_t), cudaMemcpyHostToDevice,
                              stream), "uploading the sentinel spill");
  cuda::check(cudaMemcpyAsync(locations.data() + stored, spill_locations.data(),
                              spill_locations.size() * sizeof(std::uint64_t),
                              cudaMemcpyHostToDevice, stream), "uploading the sentinel spill");
  cuda::check(cudaStreamSynchronize(stream), "exporting the GPU table");
  owned_table.reset();  // free the table before the finalize needs its memory
  summary.seconds_gpu_export = seconds_since(export_start);
  kernels::FinalizeTimes times;
  db::FeatureIndex index;
  try {
    index = kernels::finalize_on_gpu(features, locations, total, options.params, stream, &times);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string("GPU finalize of ") + std::to_string(total) +
                             " pairs failed (" + e.what() +
                             "); build with --device cpu or split the references");
  }
  summary.seconds_gpu_finalize = times.gpu;
  summary.seconds_gpu_download = times.download;
  summary.seconds_index = times.index;
  return index;
}

}  // namespace

db::Database build_database_gpu(const BuildOptions& options, BuildSummary* summary_out) {
  const std::string why = gpu_unavailable_reason();
  if (!why.empty()) throw std::runtime_error("GPU build requested, but " + why + "; use --device cpu");
  cuda::check(cudaSetDevice(options.gpu.device), "selecting the GPU");
  const BuildInputs inputs = prepare_build(options);
  const auto& params = options.params.sketch;
  const std::uint64_t pairs = options.gpu.table_capacity != 0
                                  ? options.gpu.table_capacity
                                  : estimate_pairs(inputs.files, params);
  const MemoryPlan plan = plan_memory(options.gpu, pairs);
  check_fits(plan, options.gpu);

  BuildSummary summary;
  summary.gpu_table_bytes = plan.table_bytes;
  ReadCounters counters;
  TargetCatalog catalog;
  const auto start = std::chrono::steady_clock::now();
  const auto slots = std::uint64_t(double(pairs) / max_load_factor) + 1024;
  // One stream orders table setup, build kernels, export and sort.
  const cuda::stream stream;
  db::Database database;
  database.params = options.params;
  if (options.gpu.table == BuildTable::multi_value) {
    std::optional<tables::MultiValueHashTable<feature_t, std::uint64_t>> table(
        std::in_place, slots, tables::TableOptions{}, stream);
    database.index = run_gpu_build(table, options, inputs, catalog, counters, summary, pairs, stream, start);
  } else {
    std::optional<tables::BucketListHashTable<feature_t, std::uint64_t>> table(
        std::in_place, slots, bucket_pool_words(pairs), tables::BucketListOptions{}, stream);
    database.index = run_gpu_build(table, options, inputs, catalog, counters, summary, pairs, stream, start);
  }
  // Reading and sketching overlap; what follows them is the finalize.
  summary.seconds_read_sketch = summary.seconds_gpu_setup + summary.seconds_read_overlapped;
  summary.seconds_finalize = seconds_since(start) - summary.seconds_read_sketch;
  complete_build(options, inputs, std::move(catalog), database, &summary, counters);
  if (summary_out) *summary_out = summary;
  return database;
}

}  // namespace metawarp::pipeline
