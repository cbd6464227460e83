#pragma once
// The GPU query's kernels, in the order a chunk of reads runs through them
// (query_chunk.cu launches them):
//  1. lookup_count: one thread per read window sketches it (the shared
//     sketch.hpp), looks every feature up and notes its location list;
//  2. (CUB exclusive scan of the per-window hit counts: output positions)
//  3. read_offsets: each read's hits are the range of its windows' hits;
//  4. gather: one warp per window copies its lists' global window ids (from
//     each feature's owner shard) to the window's position, those that
//     classify::repeats_within_span drops as dropped_hit (sorted last);
//  5. each read's ids sorted (the (target, window) order): a read of at most
//     small_read_hits ids by one warp in shared memory (sort_small_reads),
//     the longer ones by CUB's segmented sort (given only those: large_read_ends);
//  6. unpack_locations: ids back to sketch::Location (target, window);
//  7. top_candidates: one thread per read runs the shared
//     classify::top_candidates over its sorted hits;
//  8. matched_bases (content-defined sampling): one warp per read finds
//     its features whose list meets the best candidate's window range and
//     takes the union of their k-mers (classify/matched_bases.hpp).
#include <cstdint>

#include "kernels/device_index.cuh"
#include "kernels/query_chunk.hpp"
#include "kernels/window_owner.cuh"
#include "metawarp/classify/candidates.hpp"
#include "metawarp/classify/matched_bases.hpp"
#include "metawarp/classify/taxon_tree.hpp"
#include "metawarp/sketch/sketch.hpp"

namespace metawarp::kernels {

// The threads of a lookup group take consecutive windows and sketch one each;
// then the group looks every member's features up together (the table's
// find is cooperative), member by member, feature by feature: the order of
// lookups one thread per window issued, by a group at a time.
__global__ void lookup_count_kernel(QueryChunkView chunk, sketch::SketchParams params,
                                    DeviceIndexView index) {
  const LookupGroup group = cg::tiled_partition<lookup_group_size>(cg::this_thread_block());
  const unsigned lane = group.thread_rank();
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  const std::uint32_t s = params.sketch_size;
  // The group's first window: the same for all its threads, so they leave
  // the loop together.
  for (std::uint64_t first = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x - lane;
       first < chunk.windows; first += stride) {
    const std::uint64_t w = first + lane;
    sketch::feature_t features[sketch::max_sketch_size];
    std::uint32_t n = 0;
    if (w < chunk.windows) {
      const std::uint64_t owner = owner_of_window(chunk.sequences, 2 * chunk.reads, w);
      const QuerySequence seq = chunk.sequences[owner];
      if (chunk.positions != nullptr) {
        std::uint32_t positions[sketch::max_sketch_size];
        n = sketch::sketch_window_positions(chunk.bases + seq.base_offset, seq.length,
                                            w - seq.window_prefix, params, features, positions);
        // Mate 2 (an odd sequence) after mate 1's bases.
        const std::uint32_t offset =
            owner % 2 == 1 ? std::uint32_t(chunk.sequences[owner - 1].length) : 0;
        std::uint32_t* at = chunk.positions + w * s;
        for (std::uint32_t j = 0; j < n; ++j) at[j] = positions[j] + offset;
      } else {
        n = sketch::sketch_window(chunk.bases + seq.base_offset, seq.length,
                                  w - seq.window_prefix, params, features);
      }
    }
    std::uint64_t total = 0;
    for (unsigned member = 0; member < lookup_group_size; ++member) {
      const std::uint64_t mw = first + member;
      if (mw >= chunk.windows) break;  // the same for the whole group
      const std::uint32_t mn = group.shfl(n, member);
      for (std::uint32_t j = 0; j < s; ++j) {
        const sketch::feature_t f = group.shfl(j < n ? features[j] : 0u, member);
        const ListRange range = j < mn ? find(group, index, f) : ListRange{0, 0, 0};
        if (lane == member) {
          chunk.ranges[mw * s + j] = range;
          total += range.count;
        }
      }
    }
    if (w < chunk.windows) {
      chunk.window_hits[w] = total;
      if (chunk.window_features != nullptr) chunk.window_features[w] = std::uint8_t(n);
    }
  }
}

// One thread per window feature: its taxon over its list, each global window
// id's target found as unpack_locations finds it.
__global__ void feature_taxa_kernel(QueryChunkView chunk, std::uint32_t sketch_size,
                                    DeviceIndexView index, const classify::taxon_node_t* target_node,
                                    classify::TaxonTree tree, classify::taxon_node_t* taxa) {
  const std::uint64_t slots = chunk.windows * sketch_size;
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < slots;
       i += stride) {
    if (i % sketch_size >= chunk.window_features[i / sketch_size]) continue;
    const ListRange range = chunk.ranges[i];
    const std::uint32_t* list = index.shards[range.shard].locations + range.begin;
    taxa[i] = classify::feature_taxon_of(
        range.count, [&](std::uint32_t k) { return target_of(index, list[k]); }, target_node,
        tree);
  }
}

__global__ void read_offsets_kernel(QueryChunkView chunk) {
  const std::uint32_t r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r <= chunk.reads)
    chunk.read_offsets[r] =
        chunk.window_offsets[chunk.sequences[2 * std::uint64_t(r)].window_prefix];
}

// The key of a hit that classify::repeats_within_span drops: the largest id,
// so it sorts after the read's hits, which top_candidates_kernel then ends
// before (as the bitonic sort's padding, no window has this id).
inline constexpr std::uint32_t dropped_hit = 0xffffffffu;

// Whether classify::repeats_within_span drops global window id `id` of a
// feature's list after the list's previous id `previous` (both of that list:
// previous < id). Ids `span` or more apart are apart in windows or targets;
// only closer ones need previous's target.
__device__ inline bool repeats_within_span(const DeviceIndexView& index, std::uint32_t previous,
                                           std::uint32_t id, std::uint32_t span) {
  if (id - previous >= span) return false;
  const std::uint32_t t = target_of(index, previous);
  if (id >= index.window_base[t + 1]) return false;  // in a later target
  const std::uint32_t base = index.window_base[t];
  return classify::repeats_within_span(sketch::Location{t, previous - base},
                                       sketch::Location{t, id - base}, span);
}

// The window span of the read that window w belongs to (classify::read_window_span).
__device__ inline std::uint32_t span_of_window(const QueryChunkView& chunk, std::uint64_t w,
                                               const CandidateParams& p) {
  const std::uint64_t read = owner_of_window(chunk.sequences, 2 * chunk.reads, w) / 2;
  return classify::read_window_span(chunk.sequences[2 * read].length,
                                    chunk.sequences[2 * read + 1].length, p.insert_size,
                                    p.stride);
}

__global__ void gather_kernel(QueryChunkView chunk, std::uint32_t sketch_size,
                              DeviceIndexView index, CandidateParams p, std::uint32_t* keys) {
  constexpr unsigned warp = 32;
  const unsigned lane = threadIdx.x % warp;
  const std::uint64_t warps = std::uint64_t(gridDim.x) * blockDim.x / warp;
  for (std::uint64_t w = (std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / warp;
       w < chunk.windows; w += warps) {
    std::uint64_t out = chunk.window_offsets[w];
    const std::uint32_t span = span_of_window(chunk, w, p);
    for (std::uint32_t j = 0; j < sketch_size; ++j) {
      const ListRange range = chunk.ranges[w * sketch_size + j];
      if (range.count == 0) continue;
      const std::uint32_t* list = index.shards[range.shard].locations + range.begin;
      for (std::uint32_t i = lane; i < range.count; i += warp)
        keys[out + i] =
            i > 0 && repeats_within_span(index, list[i - 1], list[i], span) ? dropped_hit : list[i];
      out += range.count;
    }
  }
}

inline constexpr unsigned sort_warps_per_block = 8;

// The segment ends CUB sorts: a read's own end when it has more than
// small_read_hits ids, else its begin (an empty segment: left to the warps).
__global__ void large_read_ends_kernel(QueryChunkView chunk, std::uint64_t* ends) {
  const std::uint32_t r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= chunk.reads) return;
  const std::uint64_t begin = chunk.read_offsets[r], end = chunk.read_offsets[r + 1];
  ends[r] = end - begin > small_read_hits ? end : begin;
}

// One warp per read of at most small_read_hits ids: a bitonic sort in shared
// memory, padded to a power of two with the largest id (the padding sorts
// last and is not written). Keys only, so equal ids are equal: the result is
// the sorted sequence, whatever sorted it.
__global__ void sort_small_reads_kernel(QueryChunkView chunk, const std::uint32_t* ids,
                                        std::uint32_t* sorted) {
  constexpr unsigned warp = 32;
  __shared__ std::uint32_t block_keys[sort_warps_per_block][small_read_hits];
  const unsigned lane = threadIdx.x % warp;
  std::uint32_t* keys = block_keys[threadIdx.x / warp];
  const std::uint64_t warps = std::uint64_t(gridDim.x) * blockDim.x / warp;
  for (std::uint64_t r = (std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / warp;
       r < chunk.reads; r += warps) {
    const std::uint64_t begin = chunk.read_offsets[r];
    const std::uint32_t n = std::uint32_t(
        chunk.read_offsets[r + 1] - begin > small_read_hits ? 0 : chunk.read_offsets[r + 1] - begin);
    if (n == 0) continue;  // none, or CUB's
    std::uint32_t size = 1;
    while (size < n) size <<= 1;
    for (std::uint32_t i = lane; i < size; i += warp) keys[i] = i < n ? ids[begin + i] : 0xffffffffu;
    __syncwarp();
    for (std::uint32_t k = 2; k <= size; k <<= 1) {
      for (std::uint32_t j = k >> 1; j > 0; j >>= 1) {
        for (std::uint32_t i = lane; i < size; i += warp) {
          const std::uint32_t partner = i ^ j;
          if (partner <= i) continue;
          const std::uint32_t a = keys[i], b = keys[partner];
          if ((a > b) == ((i & k) == 0)) {
            keys[i] = b;
            keys[partner] = a;
          }
        }
        __syncwarp();
      }
    }
    for (std::uint32_t i = lane; i < n; i += warp) sorted[begin + i] = keys[i];
    __syncwarp();
  }
}

// A thread converts a run of consecutive (sorted) ids: the target found for
// one holds for the next while the id stays below the target's end, so the
// binary search over the window bases runs only where the target changes.
inline constexpr unsigned unpack_run = 8;
__global__ void unpack_locations_kernel(DeviceIndexView index, const std::uint32_t* ids,
                                        std::uint64_t count, sketch::Location* locations) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x * unpack_run;
  for (std::uint64_t first = (std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) * unpack_run;
       first < count; first += stride) {
    const std::uint64_t last = first + unpack_run < count ? first + unpack_run : count;
    std::uint32_t target = 0, begin = 1, end = 0;  // an empty range: the first id searches
    for (std::uint64_t i = first; i < last; ++i) {
      const std::uint32_t id = ids[i];
      if (id == dropped_hit) {
        locations[i] = sketch::Location{dropped_hit, dropped_hit};
        continue;
      }
      if (id < begin || id >= end) {
        target = target_of(index, id);
        begin = index.window_base[target];
        end = index.window_base[target + 1];
      }
      locations[i] = sketch::Location{target, id - begin};
    }
  }
}

// The window span of a read by the rule the CPU classifier uses
// (classify::read_window_span).
__global__ void top_candidates_kernel(QueryChunkView chunk, const sketch::Location* hits,
                                      CandidateParams p, classify::Candidate* top,
                                      std::uint32_t* top_counts, std::uint32_t* hit_counts) {
  const std::uint32_t r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= chunk.reads) return;
  const std::uint64_t begin = chunk.read_offsets[r];
  std::uint64_t total = chunk.read_offsets[r + 1] - begin;
  while (total > 0 && hits[begin + total - 1].target == dropped_hit) --total;  // sorted last
  const std::uint32_t n = total > 0xffffffffull ? 0xffffffffu : std::uint32_t(total);
  const std::uint32_t span = classify::read_window_span(
      chunk.sequences[2 * std::uint64_t(r)].length, chunk.sequences[2 * std::uint64_t(r) + 1].length,
      p.insert_size, p.stride);
  top_counts[r] = classify::top_candidates(hits + begin, n, span,
                                           top + std::uint64_t(r) * p.max_candidates,
                                           p.max_candidates);
  hit_counts[r] = n;
}

// One warp per read: the positions of its features whose list (sorted
// global window ids) holds an id of the best candidate's range, then their
// union (classify::union_length), as Classifier::matched_bases. The lanes
// take consecutive slots (coalesced loads of ranges and positions, the
// lists' searches side by side) and append the matches, in slot order, to
// the read's part of `sorted` (its windows' slots); one lane sorts those few
// and takes the union.
__global__ void matched_bases_kernel(QueryChunkView chunk, std::uint32_t sketch_size,
                                     std::uint32_t k, DeviceIndexView index, CandidateParams p,
                                     const classify::Candidate* top,
                                     const std::uint32_t* top_counts, std::uint32_t* sorted,
                                     std::uint32_t* matched) {
  const cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
  const std::uint64_t r = (std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  if (r >= chunk.reads) return;  // the same for the whole warp
  const unsigned lane = warp.thread_rank();
  if (top_counts[r] == 0) {
    if (lane == 0) matched[r] = 0;
    return;
  }
  const classify::Candidate best = top[r * p.max_candidates];
  const std::uint32_t base = index.window_base[best.target];
  const std::uint32_t lo = base + best.first_window, hi = base + best.last_window;
  const std::uint64_t first = chunk.sequences[2 * r].window_prefix * sketch_size;
  const std::uint64_t end = chunk.sequences[2 * r + 2].window_prefix * sketch_size;
  std::uint32_t* out = sorted + first;
  std::uint32_t n = 0;
  for (std::uint64_t from = first; from < end; from += 32) {
    const std::uint64_t slot = from + lane;
    bool meets = false;
    if (slot < end) {
      const ListRange range = chunk.ranges[slot];
      if (range.count != 0) {
        const std::uint32_t* list = index.shards[range.shard].locations + range.begin;
        std::uint32_t a = 0, b = range.count;  // the first id >= lo
        while (a < b) {
          const std::uint32_t mid = (a + b) / 2;
          if (list[mid] < lo) a = mid + 1; else b = mid;
        }
        meets = a < range.count && list[a] <= hi;
      }
    }
    const unsigned votes = warp.ballot(meets);
    if (meets) out[n + __popc(votes & ((1u << lane) - 1))] = chunk.positions[slot];
    n += __popc(votes);
  }
  warp.sync();  // the other lanes' appends are visible to lane 0
  if (lane != 0) return;
  for (std::uint32_t i = 1; i < n; ++i) {  // insertion sort: a read's few matches
    const std::uint32_t position = out[i];
    std::uint32_t j = i;
    for (; j > 0 && out[j - 1] > position; --j) out[j] = out[j - 1];
    out[j] = position;
  }
  const std::uint64_t covered = classify::union_length(out, n, k);
  matched[r] = covered > 0xffffffffull ? 0xffffffffu : std::uint32_t(covered);
}

}  // namespace metawarp::kernels
