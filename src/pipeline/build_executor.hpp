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
#include <string>

#include "db/database.hpp"
#include "pipeline/build_inputs.hpp"
#include "pipeline/build_options.hpp"

namespace metawarp::pipeline {

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
  // After flush(): the sorted, deduplicated, capped index (db::finalize's rule).
  virtual db::FeatureIndex finalize() = 0;
  // Where the executor's time went, one line for the summary ("" for none).
  virtual std::string stages() const { return {}; }
};

// Makes an executor, ready to take targets, once the inputs are known (the
// GPU sizes its table from them). Throws std::runtime_error saying what to
// change when it cannot run (no GPU, too little GPU memory, ...).
using MakeBuildExecutor =
    std::function<std::unique_ptr<BuildExecutor>(const BuildOptions&, const BuildInputs&)>;

std::unique_ptr<BuildExecutor> make_cpu_build_executor(const BuildOptions& options,
                                                       const BuildInputs& inputs);
// Implemented in src/pipeline/gpu/ when built with CUDA, else by
// src/pipeline/no_gpu/, which says why there is none.
std::unique_ptr<BuildExecutor> make_gpu_build_executor(const BuildOptions& options,
                                                       const BuildInputs& inputs);

}  // namespace metawarp::pipeline
