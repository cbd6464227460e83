#include "pipeline/gpu/build_memory_plan.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "kernels/build_batch.hpp"
#include "kernels/pair_buffer.hpp"
#include "metawarp/cuda/error.hpp"
#include "metawarp/index/feature_split.hpp"
#include "pipeline/gpu/build_batches.hpp"

namespace metawarp::pipeline::gpu {
namespace {

constexpr double gib = 1024.0 * 1024.0 * 1024.0;

// With the default growth (s_0 = 1, lambda = 1.1) short lists, the common
// case in a database, take up to two pool words per value.
std::uint64_t bucket_pool_words(std::uint64_t pairs) { return pairs * 5 / 2 + (1u << 20); }

}  // namespace

// Phase 1 holds the table, the batch buffers and, at its end, the exported
// pairs (12 bytes each). Phase 2 (the table is freed) is the finalize: about
// 20 bytes per pair plus 29 per distinct feature (kernels/finalize.hpp);
// features are assumed to occur 4/3 times on average (measured: 1.7 on
// refs138, 2.4 on the synthetic sets), i.e. 0.75 distinct features per pair.
MemoryPlan plan_memory(const GpuBuildOptions& gpu, std::uint64_t pairs) {
  MemoryPlan plan;
  plan.pairs = pairs;
  plan.slots = std::uint64_t(double(pairs) / max_load_factor) + 1024;
  plan.table_bytes = plan.slots * (sizeof(sketch::feature_t) + sizeof(std::uint64_t));
  if (gpu.table == BuildTable::bucket_list) {
    plan.pool_words = bucket_pool_words(pairs);
    plan.table_bytes += plan.pool_words * 8;
  }
  const std::uint64_t batches = 2 * gpu.batch_bases + (std::uint64_t(64) << 20);
  const std::uint64_t exported = pairs * (sizeof(sketch::feature_t) + sizeof(std::uint64_t));
  const std::uint64_t finalize = pairs * 20 + pairs * 3 / 4 * 29;
  plan.peak_bytes = std::max(plan.table_bytes + batches + exported, finalize);
  return plan;
}

std::uint64_t available_memory(const GpuBuildOptions& gpu) {
  std::size_t free_bytes = 0, total_bytes = 0;
  cuda::check(cudaMemGetInfo(&free_bytes, &total_bytes), "querying free GPU memory");
  std::uint64_t available = std::uint64_t(double(free_bytes) * 0.95);
  if (gpu.memory_limit != 0) available = std::min<std::uint64_t>(available, gpu.memory_limit);
  return available;
}

std::uint64_t round_bytes(const GpuBuildOptions& gpu, const sketch::SketchParams& params,
                          unsigned gpus) {
  const std::uint64_t batch = gpu.batch_bases + max_batch_segments * sizeof(kernels::BatchSegment);
  const std::uint64_t pair_bytes = sizeof(sketch::feature_t) + sizeof(std::uint64_t);
  const std::uint64_t pairs =
      kernels::max_pairs_of_windows(max_batch_windows(gpu.batch_bases, params), params);
  const std::uint64_t spill = SpillBuffers::capacity * pair_bytes;
  return 2 * batch + pairs * pair_bytes * (3 + std::uint64_t(gpus)) + spill +
         (std::uint64_t(64) << 20);
}

std::map<int, std::uint64_t> device_memory(const GpuBuildOptions& gpu,
                                           const sketch::SketchParams& params,
                                           index::FeatureRange part, std::uint64_t all_pairs) {
  const ShardLayout layout = gpu.layout_given ? gpu.layout : ShardLayout{{gpu.device}, 1};
  std::map<int, std::uint64_t> needed;
  const auto shards = index::split_features(part, layout.shards(), feature_distribution(params));
  for (unsigned s = 0; s < shards.size(); ++s)
    needed[layout.device_of(s)] +=
        plan_memory(gpu, pairs_in_range(all_pairs, shards[s], params)).peak_bytes;
  if (!layout.single())
    for (const int device : layout.devices)
      needed[device] += round_bytes(gpu, params, unsigned(layout.devices.size()));
  return needed;
}

void check_fits(std::uint64_t bytes, std::uint64_t pairs, const GpuBuildOptions& gpu) {
  const std::uint64_t available = available_memory(gpu);
  if (bytes <= available) return;
  char msg[512];
  std::snprintf(msg, sizeof msg,
                "the GPU build needs about %.2f GiB of GPU memory for up to %llu (feature, "
                "location) pairs, but only %.2f GiB are available%s. Use more partitions "
                "(--partitions), more GPUs (--gpus), or --device cpu",
                double(bytes) / gib, (unsigned long long)pairs,
                double(available) / gib, gpu.memory_limit ? " (--max-gpu-memory)" : "");
  throw std::runtime_error(msg);
}

}  // namespace metawarp::pipeline::gpu
