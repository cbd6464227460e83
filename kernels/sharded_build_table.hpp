#pragma once
// The multi-GPU build's table: one build table (BuildTableKind) per shard,
// shard s on its device owning the features [first_feature[s],
// first_feature[s + 1]) (the last: everything above), all of them one
// distributed table of the library (metawarp/tables/distributed/). A GPU's
// fused kernel inserts the features of one of its shards in place and
// writes the others' pairs; a round of those pair batches, one per GPU, is
// split by owner (multisplit with a RangeOwner), exchanged by the library's
// copy exchange
// (cudaMemcpyPeerAsync: peer copies between GPUs, device copies between the
// shards of one GPU) and inserted by the owners. Not NCCL: the application
// would then need libnccl (218 MB, not part of the CUDA runtime it ships) on
// every host to start at all, and on 2 x H100 the peer copies built the 10
// Gbp set as fast (read+sketch 2.14 s with 2 GPUs x 2 shards against 2.18 s
// through NCCL with one shard per GPU, docs/benchmarks.md).
// Host-side interface (no device code), so src/ compiles without nvcc.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/build_table.hpp"
#include "metawarp/sketch/types.hpp"
#include "metawarp/tables/status.hpp"

namespace metawarp::kernels {

// Pairs in device memory on one shard's device (n may be 0).
struct ShardPairs {
  const sketch::feature_t* features = nullptr;
  const std::uint64_t* locations = nullptr;
  std::uint64_t n = 0;
};

class ShardedBuildTable {
 public:
  struct Shard {
    int device = 0;
    std::uint64_t first_feature = 0;  // ascending over the shards, the first 0
    std::uint64_t slots = 0;          // key slots of its table
    std::uint64_t pool_words = 0;     // bucket list only
  };

  // Throws std::invalid_argument (bad ranges) or
  // std::runtime_error (CUDA) saying what failed.
  ShardedBuildTable(BuildTableKind kind, const std::vector<Shard>& shards);
  ~ShardedBuildTable();
  ShardedBuildTable(const ShardedBuildTable&) = delete;
  ShardedBuildTable& operator=(const ShardedBuildTable&) = delete;

  // Sketches every window of `batch` (on shard s's device, current during
  // the call) on `stream` and keeps the features of `kept`: those shard s
  // owns go into its table in place, the others' pairs to `others` (for
  // insert_from_shards, which the caller orders after it), sentinels to
  // `spill` (the fused kernel, sketch_insert.cuh).
  void sketch_insert(unsigned shard, const BatchView& batch, const sketch::SketchParams& params,
                     index::FeatureRange kept, const PairBuffer& others,
                     const SentinelSpill& spill, cudaStream_t stream);

  // batches[s] lies on shard s's device; every pair is inserted into the
  // table of the shard owning its feature. Synchronous.
  void insert_from_shards(const std::vector<ShardPairs>& batches);

  // Shard s's status of all inserts since the last call (errors: full).
  tables::Status pop_status(unsigned shard);
  // Pairs stored by shard s.
  std::uint64_t size(unsigned shard) const;
  // Writes every pair of shard s (in no order; device memory on its device,
  // which is current during the call) on `stream`; returns how many.
  std::uint64_t retrieve_all(unsigned shard, sketch::feature_t* features,
                             std::uint64_t* locations, cudaStream_t stream) const;
  // "local-copy".
  const char* exchange_name() const;

  struct Impl;  // the distributed table of either kind (sharded_build_table.cu)

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace metawarp::kernels
