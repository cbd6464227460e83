#pragma once
// The GPU build's finalize: the exported (feature, location) pairs are sorted
// on the GPU, deduplicated and capped per feature there by the rule the CPU's
// db::finalize documents, and only the final query-layout arrays travel to
// the host.
#include <cstdint>

#include "db/database.hpp"
#include "metawarp/cuda/device_buffer.hpp"

namespace metawarp::kernels {

// Where a GPU finalize spends its time (seconds).
struct FinalizeTimes {
  double gpu = 0;       // sort, runs, cap rule, compaction
  double download = 0;  // the query-layout arrays to the host
  double index = 0;     // FeatureIndex construction on the host
};

// `features`/`locations` (packed target<<32|window) hold n pairs in any order;
// both buffers are used as scratch. Returns the same FeatureIndex as
// db::finalize would for these pairs.
db::FeatureIndex finalize_on_gpu(cuda::device_buffer<sketch::feature_t>& features,
                                 cuda::device_buffer<std::uint64_t>& locations, std::uint64_t n,
                                 const db::DatabaseParams& params, cudaStream_t stream,
                                 FinalizeTimes* times = nullptr);

}  // namespace metawarp::kernels
