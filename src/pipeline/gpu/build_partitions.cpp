// How many partitions a GPU build needs: the fewest for which every
// partition fits the memory of every GPU (the shards of one GPU share it),
// by the same memory plan the executors check when they start
// (gpu::device_memory).
#include <algorithm>
#include <map>

#include "metawarp/index/feature_split.hpp"
#include "pipeline/build/build_executor.hpp"
#include "pipeline/build/build_estimate.hpp"
#include "pipeline/gpu/build_memory_plan.hpp"
#include "pipeline/gpu/selected_gpu.hpp"

namespace metawarp::pipeline {
namespace {

// Beyond this many partitions the plan is not the problem (the batch buffers
// alone do not fit): the executor's own check says so.
constexpr unsigned max_planned_partitions = 4096;

}  // namespace

unsigned gpu_partitions_needed(const BuildOptions& options, const BuildInputs& inputs) {
  const ShardLayout layout =
      options.gpu.layout_given ? options.gpu.layout : ShardLayout{{options.gpu.device}, 1};
  std::map<int, std::uint64_t> available;
  for (const int device : layout.devices) {
    const gpu::SelectedGpu gpu(device, "build");
    available[device] = gpu::available_memory(options.gpu);
  }
  const std::uint64_t all_pairs = options.gpu.table_capacity != 0
                                      ? options.gpu.table_capacity
                                      : estimate_pairs(inputs.files, options.params.sketch);
  const index::FeatureDistribution distribution = feature_distribution(options.params.sketch);
  for (unsigned n = 1; n < max_planned_partitions; n = n < 8 ? n + 1 : n * 5 / 4) {
    bool fits = true;
    for (const index::FeatureRange partition : index::split_features(options.features, n, distribution)) {
      for (const auto& [device, bytes] :
           gpu::device_memory(options.gpu, options.params.sketch, partition, all_pairs))
        fits = fits && bytes <= available[device];
      if (!fits) break;
    }
    if (fits) return n;
  }
  return max_planned_partitions;
}

}  // namespace metawarp::pipeline
