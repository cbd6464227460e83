#pragma once
// The GPU build over several shards (--gpus, --shards-per-gpu): the work is
// divided, not repeated. Each reference batch is packed once on the host and
// sketched by one GPU (batches dealt round-robin over the layout's GPUs, in
// target order); its (feature, location) pairs go to the shard owning their
// feature range (the ranges index::split_features cuts, as for the CPU's
// shards) through the library's distributed table: multisplit by range
// owner, exchange (peer copies between GPUs, device copies between the
// shards of one GPU: kernels/sharded_build_table.hpp), insert. A round is one batch per GPU (the last may be short);
// the host packs the next round while one runs. At the end every shard's
// table is finalized on its GPU, the shards side by side, and the indexes
// are concatenated in range order: byte-identical to the CPU executor's.
#include <memory>

#include "pipeline/build/build_executor.hpp"

namespace metawarp::pipeline::gpu {

// options.gpu.layout has several shards. Throws std::runtime_error saying
// what to change (no GPU, too little memory, the shards' set-up failing).
std::unique_ptr<BuildExecutor> make_multi_gpu_build_executor(const BuildOptions& options,
                                                             const BuildInputs& inputs);

}  // namespace metawarp::pipeline::gpu
