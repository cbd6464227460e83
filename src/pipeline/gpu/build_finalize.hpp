#pragma once
// The end of a GPU build, for one table (the one-GPU executor's, or each
// shard's of the multi-GPU one): its status checked, its pairs exported with
// the sentinel spill, sorted, deduplicated and capped on the GPU by the rule
// the CPU finalize applies too (kernels/finalize.hpp), into the query layout,
// left on the GPU (device_index.hpp: written from there, or downloaded), so
// the index is byte-identical to the CPU executor's.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "db/database.hpp"
#include "kernels/finalize.hpp"
#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/index/cap_rule.hpp"
#include "metawarp/tables/status.hpp"
#include "pipeline/build/build_options.hpp"

namespace metawarp::pipeline::gpu {

// A table holding more than planned: PartitionTooLarge when the capacity was
// planned from the input (the driver asks for more partitions), else an
// error naming --table-capacity.
void check_table_status(tables::Status status, std::uint64_t capacity,
                        const GpuBuildOptions& options);

// A table's pairs and its spilled ones, on the current GPU.
struct ExportedPairs {
  cuda::device_buffer<sketch::feature_t> features;
  cuda::device_buffer<std::uint64_t> locations;
  std::uint64_t total = 0;
};

// `retrieve_all(features, locations)` writes the table's `stored` pairs and
// returns how many; the spilled ones are appended. On `stream`, waited for.
ExportedPairs export_pairs(
    std::uint64_t stored,
    const std::function<std::uint64_t(sketch::feature_t*, std::uint64_t*)>& retrieve_all,
    const std::vector<db::Entry>& spilled, cudaStream_t stream);

struct FinalizeTimes {
  double gpu = 0;  // sort, cap rule, compaction on the GPU
};

// Finalizes `pairs` on the current GPU (on `stream`, waited for).
kernels::FinalizedIndex finalize_on_gpu(ExportedPairs pairs, index::CapRule rule,
                                        cudaStream_t stream, FinalizeTimes& times);

}  // namespace metawarp::pipeline::gpu
