#pragma once
// The GPU build's table: feature -> packed (target, window) location, a
// multi-value or bucket-list table of the library, filled batch by batch by
// the fused sketch+insert kernel. Host-side interface (no device code), so
// the build executor in src/ compiles without nvcc.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>

#include "kernels/build_batch.hpp"
#include "kernels/pair_buffer.hpp"
#include "metawarp/index/feature_range.hpp"
#include "metawarp/sketch/types.hpp"
#include "metawarp/tables/status.hpp"

namespace metawarp::kernels {

enum class BuildTableKind { multi_value, bucket_list };

// Features equal to a table sentinel cannot be table keys; they are rare
// (2 of 2^32 hash values) and go to this side list so nothing is lost.
struct SentinelSpill {
  std::uint64_t* count;
  std::uint32_t* features;
  std::uint64_t* locations;
  std::uint64_t capacity;
};

// Which part of the database a kernel builds: the features of `kept` (the
// build's, or a partition's) are kept (FeatureRange::contains, the rule the
// CPU applies too); those of `own` go into the kernel's table, the rest of
// `kept` to `others` (for the shards owning them); features equal to a
// table sentinel go to the spill. One GPU: own == kept, `others` unused.
struct SketchTargets {
  index::FeatureRange own;
  index::FeatureRange kept;
  PairBuffer others;
  SentinelSpill spill;
};

class BuildTable {
 public:
  // `slots` key slots; `pool_words` of value storage (bucket list only).
  // Cleared on `stream`.
  BuildTable(BuildTableKind kind, std::uint64_t slots, std::uint64_t pool_words,
             cudaStream_t stream);
  ~BuildTable();
  BuildTable(BuildTable&&) noexcept;
  BuildTable& operator=(BuildTable&&) noexcept;

  // Sketches every window of `batch` (device memory) and inserts its
  // features that lie in `range` (all: FeatureRange{}), on `stream`.
  void sketch_insert(const BatchView& batch, const sketch::SketchParams& params,
                     index::FeatureRange range, const SentinelSpill& spill,
                     cudaStream_t stream);
  // The status of all inserts since the last call (errors: the table is full).
  tables::Status pop_status(cudaStream_t stream);
  // (feature, location) pairs stored.
  std::uint64_t size(cudaStream_t stream) const;
  // Writes every pair (in no order); returns how many.
  std::uint64_t retrieve_all(sketch::feature_t* features, std::uint64_t* locations,
                             cudaStream_t stream) const;

  struct Impl;  // the table of either kind (build_table.cu)

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace metawarp::kernels
