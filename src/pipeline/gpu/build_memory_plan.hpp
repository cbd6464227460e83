#pragma once
// How much GPU memory a GPU build needs, worked out from the input files
// before any work, so that a build that cannot fit says so at once.
#include <cstdint>
#include <string>
#include <vector>

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

// Throws std::runtime_error saying what to change when the plan does not fit
// in the free GPU memory (or gpu.memory_limit).
void check_fits(const MemoryPlan& plan, const GpuBuildOptions& gpu);

}  // namespace metawarp::pipeline::gpu
