#pragma once
// The GPU build's finalize: the exported (feature, location) pairs are sorted
// on the GPU, deduplicated and capped per feature by the database's cap rule
// (metawarp/index/cap_rule.hpp, the CPU finalize's too), into the query
// layout, which stays on the GPU for the caller to download.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/index/cap_rule.hpp"
#include "metawarp/sketch/types.hpp"

namespace metawarp::kernels {

// The query layout in device memory (buffers may be longer than their counts).
struct FinalizedIndex {
  cuda::device_buffer<sketch::feature_t> features;  // feature_count, ascending
  cuda::device_buffer<std::uint64_t> offsets;       // feature_count list starts
  cuda::device_buffer<std::uint64_t> locations;     // location_count, as sketch::Location bytes
  std::uint64_t feature_count = 0;
  std::uint64_t location_count = 0;
};

// `features` and `locations` (packed target << 32 | window) hold n pairs in
// any order; their memory is reused. Peak memory: about 20 bytes per pair
// plus 29 per distinct feature.
FinalizedIndex finalize_pairs(cuda::device_buffer<sketch::feature_t> features,
                              cuda::device_buffer<std::uint64_t> locations, std::uint64_t n,
                              index::CapRule rule, cudaStream_t stream);

}  // namespace metawarp::kernels
