#pragma once
// The build's executor seam: the one driver (build.cpp) reads the references
// in target-id order and hands every target to an executor, which sketches
// its windows and, once all are in, finalizes the (feature, location) pairs
// into the query layout. The CPU executor (cpu_build_executor.cpp) and the
// GPU one (gpu/gpu_build_executor.cpp) give byte-identical indexes. The
// driver takes the executor's maker as an argument, so an executor for
// several GPUs or for partitions plugs in without touching the driver.
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "db/database.hpp"
#include "pipeline/build/build_inputs.hpp"
#include "pipeline/build/build_options.hpp"
#include "pipeline/build/built_index.hpp"

namespace metawarp::pipeline {

// Every executor keeps only the features inside options.features
// (FeatureRange::contains, in the CPU sketch path and in the fused GPU
// kernel): that is how a database is built in parts, as shards or partitions.

// One reference sequence, with its target id and window count.
struct TargetSequence {
  sketch::target_id_t target = 0;
  std::uint64_t windows = 0;
  std::string sequence;
};

class BuildExecutor {
 public:
  virtual ~BuildExecutor() = default;
  // Called for every target in target-id order, from one thread.
  virtual void add(TargetSequence target) = 0;
  // Returns once every target added is sketched (and inserted).
  virtual void flush() = 0;
  // After flush(): the sorted, deduplicated, capped index (db::finalize's
  // rule), on the host or left on the executor's GPUs (built_index.hpp).
  virtual BuiltIndex finalize() = 0;
  // Where the executor's time went, one line for the summary ("" for none).
  virtual std::string stages() const { return {}; }
};

// Makes an executor, ready to take targets, once the inputs are known (the
// GPU sizes its table from them). Throws std::runtime_error saying what to
// change when it cannot run (no GPU, too little GPU memory, ...).
using MakeBuildExecutor =
    std::function<std::unique_ptr<BuildExecutor>(const BuildOptions&, const BuildInputs&)>;

// An executor's part holds more than its memory limit allows (the GPU table
// or --partition-size): the driver names the partition and says how many
// partitions to ask for instead.
class PartitionTooLarge : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// With options.cpu_shards > 1, a sharded executor (sharded_build_executor.hpp)
// of that many CPU executors.
std::unique_ptr<BuildExecutor> make_cpu_build_executor(const BuildOptions& options,
                                                       const BuildInputs& inputs);
// Implemented in src/pipeline/gpu/ when built with CUDA, else by
// src/pipeline/no_gpu/, which says why there is none. With several shards in
// options.gpu.layout, the multi-GPU executor (gpu/multi_gpu_build_executor.hpp):
// each batch sketched by one GPU, its pairs sent to the shards owning them.
std::unique_ptr<BuildExecutor> make_gpu_build_executor(const BuildOptions& options,
                                                       const BuildInputs& inputs);

// How many partitions an executor needs at least, so that each fits its
// memory (given before any work, from the inputs' sizes). For the GPU: the
// memory plan of the largest shard of a partition against the free GPU
// memory (or --max-gpu-memory).
using PartitionsNeeded = std::function<unsigned(const BuildOptions&, const BuildInputs&)>;
unsigned gpu_partitions_needed(const BuildOptions& options, const BuildInputs& inputs);

}  // namespace metawarp::pipeline
