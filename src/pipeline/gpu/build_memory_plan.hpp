#pragma once
// How much GPU memory a GPU build needs, worked out from the input files
// before any work, so that a build that cannot fit says so at once.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "metawarp/index/feature_range.hpp"

#include "metawarp/sketch/types.hpp"
#include "pipeline/build/build.hpp"
#include "pipeline/build/build_estimate.hpp"

namespace metawarp::pipeline::gpu {

// The table's load factor at its planned capacity.
inline constexpr double max_load_factor = 0.8;

struct MemoryPlan {
  std::uint64_t pairs = 0;        // table capacity in (feature, location) pairs
  std::uint64_t slots = 0;        // table key slots
  std::uint64_t pool_words = 0;   // bucket-list value storage (0 for multi-value)
  std::uint64_t table_bytes = 0;
  std::uint64_t peak_bytes = 0;   // the larger of the table phase and the finalize
};

// The plan for `pairs` pairs (gpu.table_capacity when set, else the
// estimate; for a part, its range's share: pairs_in_range).
MemoryPlan plan_memory(const GpuBuildOptions& gpu, std::uint64_t pairs);

// The GPU memory a build may use on the current device: 95 % of what is
// free, at most gpu.memory_limit (when set).
std::uint64_t available_memory(const GpuBuildOptions& gpu);

// The device memory of one GPU's rounds in the multi-GPU build
// (multi_gpu_build_executor.hpp): two batches and two buffers of sketched
// pairs (each sized to the most a batch can give: one round is uploaded and
// sketched while the one before is inserted), and the exchange's copies of
// them: the owner split and, in the worst case, every GPU's pairs received.
std::uint64_t round_bytes(const GpuBuildOptions& gpu, const sketch::SketchParams& params,
                          unsigned gpus);

// What every device of the build's layout (gpu.layout when given, else
// gpu.device alone) needs to build the features `part`: the plans of the
// tables of its shards (the part split by index::split_features as the
// executors split it, `all_pairs` the pairs of the whole feature space) and,
// with several shards, the round buffers.
std::map<int, std::uint64_t> device_memory(const GpuBuildOptions& gpu,
                                           const sketch::SketchParams& params,
                                           index::FeatureRange part, std::uint64_t all_pairs);

// Throws std::runtime_error saying what to change when `bytes` (for up to
// `pairs` pairs) do not fit in the free memory of the current GPU (or
// gpu.memory_limit).
void check_fits(std::uint64_t bytes, std::uint64_t pairs, const GpuBuildOptions& gpu);

}  // namespace metawarp::pipeline::gpu
