#pragma once
// The partitioned query's lookup on the GPU (host-side interface; the
// collector in src/pipeline/gpu/ owns the buffers and the stream): the
// features of many reads, looked up in the part uploaded as a DeviceIndexView,
// their locations gathered back as (target, window) in feature order, so that
// read r's hits are those of its features [offsets[r], offsets[r + 1]).
#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/cub_scratch.hpp"
#include "kernels/device_index.hpp"
#include "metawarp/index/feature_range.hpp"
#include "metawarp/sketch/types.hpp"

namespace metawarp::kernels {

// For each of `count` features: its list in `index` (count 0 outside `range`,
// the values the part may hold) into ranges[i], and positions[i] = the hits
// of the features before it (positions: count + 1; the last is the total).
// `counts` (count + 1) is scratch.
void count_part_hits(const DeviceIndexView& index, index::FeatureRange range,
                     const sketch::feature_t* features, std::uint64_t count, ListRange* ranges,
                     std::uint64_t* counts, std::uint64_t* positions, CubScratch& scratch,
                     cudaStream_t stream);

// For features [first, last): feature i's locations into
// hits[positions[i] - positions[first], positions[i + 1] - positions[first]),
// converted from global window ids to (target, window) with the index's
// window bases (a few calls bound the hits held on the device at once).
void gather_part_hits(const DeviceIndexView& index, const ListRange* ranges, std::uint64_t first,
                      std::uint64_t last, const std::uint64_t* positions,
                      sketch::Location* hits, cudaStream_t stream);

}  // namespace metawarp::kernels
