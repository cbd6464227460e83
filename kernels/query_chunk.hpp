#pragma once
// The GPU query's kernels for one chunk of reads, behind three launch
// functions with plain-data arguments (host-side interface: the query engine
// in src/pipeline/gpu/ owns the buffers, streams and lanes):
//  count_hits:         sketch every read window, look its features up, count
//                      and place the hits (window and read offsets);
//  gather_sorted_hits: gather the hits' locations, sort each read's;
//  score_candidates:   the shared classify::top_candidates per read.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/cub_scratch.hpp"
#include "kernels/device_index.hpp"
#include "metawarp/classify/candidates.hpp"
#include "metawarp/classify/taxon_tree.hpp"
#include "metawarp/sketch/sketch.hpp"

namespace metawarp::kernels {

// One mate in a chunk's base buffer. Read r owns sequences 2r (mate 1) and
// 2r+1 (mate 2, length 0 for single-end); a last entry 2n holds only
// window_prefix = the chunk's window count.
struct QuerySequence {
  std::uint64_t base_offset;
  std::uint64_t length;
  std::uint64_t window_prefix;  // windows of all earlier sequences
};

// A chunk's device arrays.
struct QueryChunkView {
  const char* bases;
  const QuerySequence* sequences;  // 2 * reads + 1
  std::uint32_t reads;
  std::uint64_t windows;
  ListRange* ranges;             // windows * sketch size
  std::uint64_t* window_hits;    // windows + 1
  std::uint64_t* window_offsets; // windows + 1: the last is the chunk's hit count
  std::uint64_t* read_offsets;   // reads + 1
  // Null, or windows entries: each window's feature count (the first that
  // many of its ranges are its features, in the sketch's order), for
  // feature_taxa and the host's evidence of a read.
  std::uint8_t* window_features = nullptr;
  // Null, or windows * sketch size entries: each window feature's read
  // position (sketch::sketch_window_positions; mate 2's after mate 1's bases),
  // for the matched-bases rule (content-defined sampling).
  std::uint32_t* positions = nullptr;
};
static_assert(sketch::max_sketch_size <= 255, "a window's feature count is kept in a byte");

struct CandidateParams {
  std::uint32_t stride;          // sketch stride
  std::uint64_t insert_size;     // ClassifierOptions::insert_size
  std::uint32_t max_candidates;  // ClassifierOptions::max_candidates
};

void count_hits(const QueryChunkView& chunk, const sketch::SketchParams& params,
                const DeviceIndexView& index, CubScratch& scratch, cudaStream_t stream);

// The end of count_hits, for hits counted elsewhere (kept_hits.hpp):
// chunk.window_offsets from chunk.window_hits (windows + 1 entries, the last
// 0), then chunk.read_offsets.
void place_hits(const QueryChunkView& chunk, CubScratch& scratch, cudaStream_t stream);

// A read's hits are sorted in shared memory by one warp up to this many: the
// average read pair has a few hundred (CUB's device-wide segmented sort of
// those took 56 % of a chunk's GPU time: docs/benchmarks.md, issue 13).
inline constexpr std::uint32_t small_read_hits = 1024;

// Each read's range of `keys` (chunk.read_offsets; `total` in all) sorted into
// the same range of `sorted`: a warp per read in shared memory up to
// small_read_hits keys, CUB's segmented sort for the longer ones.
// Uses only chunk.reads and chunk.read_offsets; `large_read_ends`: scratch of
// chunk.reads entries.
void sort_each_read(const QueryChunkView& chunk, std::uint64_t total, const std::uint32_t* keys,
                    std::uint32_t* sorted, std::uint64_t* large_read_ends, CubScratch& scratch,
                    cudaStream_t stream);

// `total` hits (window_offsets[windows]) as global window ids into `keys`,
// each read's sorted into `sorted`, then as (target, window) into `hits`;
// those classify::repeats_within_span drops (the read's span from
// `candidates`) end each read's range as (dropped_hit, dropped_hit), which
// score_candidates leaves out. `large_read_ends`: scratch of chunk.reads entries.
void gather_sorted_hits(const QueryChunkView& chunk, std::uint32_t sketch_size,
                        const DeviceIndexView& index, const CandidateParams& candidates,
                        std::uint64_t total, std::uint32_t* keys,
                        std::uint32_t* sorted, std::uint64_t* large_read_ends,
                        sketch::Location* hits, CubScratch& scratch, cudaStream_t stream);

// Each window's features' taxa, for the evidence of --kraken-output and
// --confidence: taxa[w * sketch_size + j] = classify::feature_taxon_of over
// feature j's list, for j < chunk.window_features[w] (which must be set;
// the other entries are not written). target_node and tree's arrays live on
// the chunk's GPU.
void feature_taxa(const QueryChunkView& chunk, std::uint32_t sketch_size,
                  const DeviceIndexView& index, const classify::taxon_node_t* target_node,
                  const classify::TaxonTree& tree, classify::taxon_node_t* taxa,
                  cudaStream_t stream);

// Per read (chunk.positions must be set): matched[r] the read bases its
// features whose list meets the best candidate's window range cover
// (classify::union_length of their positions, as Classifier::matched_bases
// computes it on the host; 0 without candidates). `sorted_positions`:
// scratch of windows * sketch size entries. After score_candidates.
void matched_bases(const QueryChunkView& chunk, std::uint32_t sketch_size, std::uint32_t k,
                   const DeviceIndexView& index, const CandidateParams& params,
                   const classify::Candidate* top, const std::uint32_t* top_counts,
                   std::uint32_t* sorted_positions, std::uint32_t* matched, cudaStream_t stream);

// Per read: top[r * max_candidates ...] its best candidates, top_counts[r]
// how many, hit_counts[r] its hits (those gather_sorted_hits kept).
void score_candidates(const QueryChunkView& chunk, const sketch::Location* hits,
                      const CandidateParams& params, classify::Candidate* top,
                      std::uint32_t* top_counts, std::uint32_t* hit_counts, cudaStream_t stream);

}  // namespace metawarp::kernels
