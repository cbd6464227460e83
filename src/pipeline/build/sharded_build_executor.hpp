#pragma once
// A build executor made of one executor per shard: the shards' feature ranges
// split the executor's own range (options.features) into balanced parts
// (index/feature_split.hpp), each shard keeps the features of its range, and
// finalize() runs the shards' finalizes side by side (one host thread each)
// and concatenates their indexes in range order, which is the index one
// executor builds (index/feature_range.hpp). Every target goes to every
// shard, which sketches all of it and keeps its own features (replicated
// sketching): no exchange between shards, at the price of sketching each
// window once per shard (docs/cli.md, "Building a database in parts"). The
// CPU's shards (--shards) use it; the GPU shards divide the sketching
// instead (gpu/multi_gpu_build_executor.hpp).
#include <functional>
#include <memory>

#include "pipeline/build/build_executor.hpp"

namespace metawarp::pipeline {

// Makes shard `shard`'s executor from `shard_options` (options with
// `features` set to the shard's range).
using MakeShardExecutor = std::function<std::unique_ptr<BuildExecutor>(
    BuildOptions shard_options, const BuildInputs& inputs, unsigned shard)>;

std::unique_ptr<BuildExecutor> make_sharded_build_executor(const BuildOptions& options,
                                                           const BuildInputs& inputs,
                                                           unsigned shards,
                                                           const MakeShardExecutor& make_shard);

}  // namespace metawarp::pipeline
