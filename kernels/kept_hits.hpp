#pragma once
// The streamed query's chunks decided on the GPU (host-side interface; the
// collector in src/pipeline/gpu/ owns the buffers): a chunk of reads stays on
// the device while the parts of the database pass through it. After
// count_hits on a part's index, the lists the part holds for the chunk's
// features are copied into a segment of the chunk's own (the part may leave
// the GPU next), and the chunk's kept ranges point at them: kept[slot] =
// {segment, offset, count}, the segment index standing where a shard index
// stands in a ListRange. Once every part has passed, a DeviceIndexView whose
// "shards" are those segments (locations only; no lookup) gives the chunk's
// kernels of query_chunk.hpp (gather, sort, score, matched bases, feature
// taxa) the same lists the whole database gives, so the reads get the
// resident engine's results. A feature lies in one part: a slot's list comes
// from one part at most.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/device_index.hpp"
#include "kernels/query_chunk.hpp"

namespace metawarp::kernels {

// After count_hits(chunk, params, part, ...): each slot's list in `part`
// copied to `segment_keys` at its place in chunk.window_offsets (which must
// hold chunk.window_offsets[chunk.windows] entries), kept[slot] set to
// {segment, that place, count} where the part has a list (other slots are
// left as they are), and kept_window_hits[w] += chunk.window_hits[w].
void keep_part_lists(const QueryChunkView& chunk, std::uint32_t sketch_size,
                     const DeviceIndexView& part, std::uint32_t segment,
                     std::uint32_t* segment_keys, ListRange* kept,
                     std::uint64_t* kept_window_hits, cudaStream_t stream);

}  // namespace metawarp::kernels
