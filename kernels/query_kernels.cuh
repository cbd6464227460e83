#pragma once
// The GPU query's kernels, in the order a chunk of reads runs through them:
//  1. lookup_count: one thread per read window sketches it (the shared
//     sketch.hpp), looks every feature up and notes its location list;
//  2. (CUB exclusive scan of the per-window hit counts: output positions)
//  3. gather: one warp per window copies its lists' locations, as (target,
//     window) sort keys, to the window's position;
//  4. read_offsets: each read's hits are the range of its windows' hits;
//  5. (CUB segmented sort of each read's keys)
//  6. unpack_locations: sort keys back to sketch::Location, in place;
//  7. top_candidates: one thread per read runs the shared
//     classify::top_candidates over its sorted hits.
#include <cstdint>

#include "kernels/device_database.cuh"
#include "kernels/window_owner.cuh"
#include "metawarp/classify/candidates.hpp"
#include "metawarp/sketch/sketch.hpp"

namespace metawarp::kernels {

// One mate in a chunk's pinned base buffer. Read r owns sequences 2r (mate 1)
// and 2r+1 (mate 2, length 0 for single-end); a last entry 2n holds only
// window_prefix = the chunk's window count.
struct QuerySequence {
  std::uint64_t base_offset;
  std::uint64_t length;
  std::uint64_t window_prefix;  // windows of all earlier sequences
};

// A looked-up feature's location list.
struct ListRange {
  std::uint64_t begin;
  std::uint32_t count;
};

__global__ void lookup_count_kernel(const char* bases, const QuerySequence* seqs,
                                    std::uint32_t seq_count, std::uint64_t windows,
                                    sketch::SketchParams params, DeviceIndexRef index,
                                    ListRange* ranges, std::uint64_t* window_hits) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  const std::uint32_t s = params.sketch_size;
  for (std::uint64_t w = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; w < windows;
       w += stride) {
    const QuerySequence seq = seqs[owner_of_window(seqs, seq_count, w)];
    sketch::feature_t features[sketch::max_sketch_size];
    const std::uint32_t n = sketch::sketch_window(bases + seq.base_offset, seq.length,
                                                  w - seq.window_prefix, params, features);
    std::uint64_t total = 0;
    for (std::uint32_t j = 0; j < s; ++j) {
      ListRange range{0, 0};
      if (j < n) index.find(features[j], range.begin, range.count);
      ranges[w * s + j] = range;
      total += range.count;
    }
    window_hits[w] = total;
  }
}

__global__ void gather_kernel(const ListRange* ranges, const std::uint64_t* window_offsets,
                              std::uint64_t windows, std::uint32_t sketch_size,
                              DeviceIndexRef index, std::uint64_t* keys) {
  constexpr unsigned warp = 32;
  const unsigned lane = threadIdx.x % warp;
  const std::uint64_t warps = std::uint64_t(gridDim.x) * blockDim.x / warp;
  for (std::uint64_t w = (std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / warp;
       w < windows; w += warps) {
    std::uint64_t out = window_offsets[w];
    for (std::uint32_t j = 0; j < sketch_size; ++j) {
      const ListRange range = ranges[w * sketch_size + j];
      for (std::uint32_t i = lane; i < range.count; i += warp)
        keys[out + i] = index.locations[range.begin + i].packed();
      out += range.count;
    }
  }
}

__global__ void read_offsets_kernel(const QuerySequence* seqs, std::uint32_t reads,
                                    const std::uint64_t* window_offsets,
                                    std::uint64_t* read_offsets) {
  const std::uint32_t r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r <= reads) read_offsets[r] = window_offsets[seqs[2 * std::uint64_t(r)].window_prefix];
}

// Same size, element by element: safe in place.
__global__ void unpack_locations_kernel(std::uint64_t* keys, std::uint64_t count) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  auto* locations = reinterpret_cast<sketch::Location*>(keys);
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    const std::uint64_t key = keys[i];
    locations[i] = sketch::Location::unpack(key);
  }
}

struct CandidateParams {
  std::uint32_t stride;          // sketch stride
  std::uint64_t insert_size;     // ClassifierOptions::insert_size
  std::uint32_t max_candidates;  // ClassifierOptions::max_candidates
};

// Fragment length and span exactly as Classifier::classify computes them.
__global__ void top_candidates_kernel(const QuerySequence* seqs, std::uint32_t reads,
                                      const std::uint64_t* read_offsets,
                                      const sketch::Location* hits, CandidateParams p,
                                      classify::Candidate* top, std::uint32_t* top_counts,
                                      std::uint32_t* hit_counts) {
  const std::uint32_t r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= reads) return;
  const std::uint64_t begin = read_offsets[r];
  const std::uint64_t total = read_offsets[r + 1] - begin;
  const std::uint32_t n = total > 0xffffffffull ? 0xffffffffu : std::uint32_t(total);
  const std::uint64_t length1 = seqs[2 * std::uint64_t(r)].length;
  const std::uint64_t length2 = seqs[2 * std::uint64_t(r) + 1].length;
  std::uint64_t fragment = length1 + length2;
  if (length2 != 0 && p.insert_size > fragment) fragment = p.insert_size;
  const std::uint32_t span = classify::window_span(fragment, p.stride);
  top_counts[r] = classify::top_candidates(hits + begin, n, span,
                                           top + std::uint64_t(r) * p.max_candidates,
                                           p.max_candidates);
  hit_counts[r] = n;
}

}  // namespace metawarp::kernels
