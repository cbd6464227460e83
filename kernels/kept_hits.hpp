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

#include "kernels/cub_scratch.hpp"
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

// A part's lists kept in one process and decided in another (the MPI
// engine): what keep_part_lists left of a chunk is its segment and each
// slot's list length, the lists lying in slot order (their offsets are the
// lengths' running sum), so the lengths and the segment are all that travel;
// most slots have no list in a given part, so the lengths travel as a bit per
// slot (mask: 32 slots a word, slot 32w + b in bit b of word w) and the
// lengths of the slots whose bit is set, in slot order.
// pack_kept_lengths: that of kept[0, slots) (each length at most 255: the
// caller checks the database's longest list) into `mask` (words =
// ceil(slots / 32)) and `lengths` (room for `slots`); word_counts and
// word_offsets are scratch of words + 1 entries, and word_offsets[words]
// is then the number of lengths written.
void pack_kept_lengths(const ListRange* kept, std::uint64_t slots, std::uint32_t* mask,
                       std::uint8_t* lengths, std::uint64_t* word_counts,
                       std::uint64_t* word_offsets, CubScratch& scratch, cudaStream_t stream);

// The other end: every slot's length (0 where its bit is not set) into
// `slot_lengths` from a mask and its lengths; scratch as above.
void unpack_kept_lengths(const std::uint32_t* mask, const std::uint8_t* lengths,
                         std::uint64_t slots, std::uint8_t* slot_lengths,
                         std::uint64_t* word_counts, std::uint64_t* word_offsets,
                         CubScratch& scratch, cudaStream_t stream);

// Number of mask words for `slots` slots.
inline std::uint64_t kept_mask_words(std::uint64_t slots) { return (slots + 31) / 32; }

// The other end: the chunk's kept ranges pointed at such a segment (on the
// device, index `segment` of the chunk's): kept[slot] = {segment, its
// offset, its length} where the length is not 0, as keep_part_lists sets
// them, and kept_window_hits[w] += the window's lengths. window_sums and
// window_offsets are scratch of `windows` entries.
void adopt_kept_lists(const std::uint8_t* lengths, std::uint64_t windows,
                      std::uint32_t sketch_size, std::uint32_t segment,
                      std::uint64_t* window_sums, std::uint64_t* window_offsets,
                      CubScratch& scratch, ListRange* kept, std::uint64_t* kept_window_hits,
                      cudaStream_t stream);

}  // namespace metawarp::kernels
