#pragma once
// Device-side multisplit: reorders a batch of keys (with optional values) so
// that the keys of each owner shard are contiguous, shard 0 first, and the
// order within a shard is the input order (stable: results never depend on
// thread timing). Three steps, as in the multisplit literature:
//   1. count:   each tile of `tile_items` keys counts its keys per shard;
//   2. scan:    one exclusive prefix sum over the (shard, tile) counts, laid
//               out shard-major, gives every tile the first output position
//               of each of its shards;
//   3. scatter: each tile re-reads its keys in order and writes each to its
//               shard's next position (warp ranks by __match_any_sync, warps
//               combined in order through shared memory).
// source_index_out[j] receives the input position of output j, so answers
// computed in shard order can be put back in input order.
#include <cub/device/device_scan.cuh>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "metawarp/cuda/error.hpp"
#include "metawarp/cuda/pooled_buffer.hpp"
#include "metawarp/tables/distributed/owner.hpp"

namespace metawarp::tables::distributed {

namespace detail {

inline constexpr unsigned split_block = 256;
inline constexpr unsigned split_warps = split_block / 32;
inline constexpr unsigned split_chunks = 8;  // chunks of split_block keys per tile
inline constexpr std::uint64_t tile_items = std::uint64_t(split_block) * split_chunks;
static_assert(max_shards <= split_block, "one thread per shard in the scatter's scans");

template <class K, class Owner>
__global__ void split_count(const K* keys, std::uint64_t n, Owner owner, std::uint64_t tiles,
                            std::uint64_t* tile_counts) {
  __shared__ unsigned counts[max_shards];
  const unsigned shards = owner.num_shards();
  for (unsigned t = threadIdx.x; t < shards; t += blockDim.x) counts[t] = 0;
  __syncthreads();
  const std::uint64_t begin = std::uint64_t(blockIdx.x) * tile_items;
  const std::uint64_t end = begin + tile_items < n ? begin + tile_items : n;
  for (std::uint64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
    atomicAdd(&counts[owner(keys[i])], 1u);
  }
  __syncthreads();
  for (unsigned t = threadIdx.x; t < shards; t += blockDim.x) {
    tile_counts[std::uint64_t(t) * tiles + blockIdx.x] = counts[t];
  }
}

template <class K, class V, class Owner>
__global__ void split_scatter(const K* keys, const V* values, std::uint64_t n, Owner owner,
                              std::uint64_t tiles, const std::uint64_t* tile_starts, K* keys_out,
                              V* values_out, std::uint64_t* source_index_out) {
  __shared__ std::uint64_t warp_starts[split_warps][max_shards];
  __shared__ std::uint64_t next[max_shards];  // next output position per shard
  const unsigned shards = owner.num_shards();
  const unsigned warp = threadIdx.x / 32;
  const unsigned lane = threadIdx.x % 32;
  const unsigned lanes_below = (1u << lane) - 1u;
  for (unsigned t = threadIdx.x; t < shards; t += blockDim.x) {
    next[t] = tile_starts[std::uint64_t(t) * tiles + blockIdx.x];
  }
  const std::uint64_t tile_begin = std::uint64_t(blockIdx.x) * tile_items;
  for (unsigned chunk = 0; chunk < split_chunks; ++chunk) {
    const std::uint64_t i = tile_begin + std::uint64_t(chunk) * split_block + threadIdx.x;
    const bool valid = i < n;
    const K key = valid ? keys[i] : K{};
    const unsigned shard = valid ? owner(key) : ~0u;
    // Lanes of this warp with the same shard; rank = how many come before.
    const unsigned peers = __match_any_sync(0xffffffffu, shard);
    const unsigned rank = __popc(peers & lanes_below);
    for (unsigned t = lane; t < shards; t += 32) warp_starts[warp][t] = 0;
    __syncwarp();
    if (valid && rank == 0) warp_starts[warp][shard] = __popc(peers);
    __syncthreads();
    // Per shard: warps' counts -> their first positions, in warp order.
    for (unsigned t = threadIdx.x; t < shards; t += blockDim.x) {
      std::uint64_t position = next[t];
      for (unsigned w = 0; w < split_warps; ++w) {
        const std::uint64_t count = warp_starts[w][t];
        warp_starts[w][t] = position;
        position += count;
      }
      next[t] = position;
    }
    __syncthreads();
    if (valid) {
      const std::uint64_t at = warp_starts[warp][shard] + rank;
      keys_out[at] = key;
      if (values != nullptr) values_out[at] = values[i];
      if (source_index_out != nullptr) source_index_out[at] = i;
    }
    __syncthreads();  // warp_starts is rewritten by the next chunk
  }
}

// offsets[s] = tile_starts[s * tiles] (first output of shard s), offsets[shards] = n.
// A template (of the one offset type) so that a header may define it: nvcc
// ignores `inline` on a __global__ function, and a plain one defined here
// would be defined again by every file that includes the header.
template <class Offset>
__global__ void split_shard_offsets(const Offset* tile_starts, Offset tiles, unsigned shards,
                                    Offset* offsets) {
  const unsigned s = threadIdx.x;
  if (s <= shards) offsets[s] = tile_starts[std::uint64_t(s) * tiles];
}

}  // namespace detail

// Result of a multisplit: shard s's keys are outputs [offsets[s], offsets[s+1]).
struct SplitOffsets {
  std::vector<std::uint64_t> offsets;  // shards + 1 entries
  std::uint64_t count(unsigned shard) const { return offsets[shard + 1] - offsets[shard]; }
};

// A multisplit enqueued on its stream and not yet waited for: it owns the
// scratch the kernels use (pool memory in the stream's order: a warmed split
// allocates nothing from the driver) and points to the caller's page-locked
// words that receive the shard offsets, so several shards' multisplits run at
// once (a distributed insert enqueues one per GPU, then waits for all)
// instead of one after another.
class PendingSplit {
 public:
  PendingSplit(unsigned shards, std::uint64_t* host_offsets, cudaStream_t stream)
      : stream_(stream), shards_(shards), host_offsets_(host_offsets) {}
  PendingSplit(PendingSplit&&) noexcept = default;
  PendingSplit& operator=(PendingSplit&&) noexcept = default;

  // Waits for the split on its stream (with its device current) and returns
  // the shard offsets.
  SplitOffsets wait() {
    cuda::check(cudaStreamSynchronize(stream_), "waiting for the multisplit");
    SplitOffsets result;
    result.offsets.assign(host_offsets_, host_offsets_ + shards_ + 1);
    return result;
  }

 private:
  template <class K, class V, class Owner>
  friend PendingSplit multisplit_async(const K*, const V*, std::uint64_t, const Owner&, K*, V*,
                                       std::uint64_t*, std::uint64_t*, cudaStream_t);
  cudaStream_t stream_;
  unsigned shards_;
  std::uint64_t* host_offsets_;  // the caller's, shards + 1 words
  cuda::pooled_buffer<std::uint64_t> starts_;
  cuda::pooled_buffer<unsigned char> temp_;
  cuda::pooled_buffer<std::uint64_t> offsets_;
};

// Splits n keys (and values, if not null) by owner(key) into keys_out /
// values_out; source_index_out (optional) gets each output's input position.
// All pointers are device memory on the current device; inputs and outputs
// must not overlap. host_offsets: shards + 1 words of host memory, written
// by the stream; page-locked, or the copy blocks the host. Only enqueues on
// `stream`: the outputs and the offsets are ready once the returned
// PendingSplit's wait() returns.
template <class K, class V, class Owner>
PendingSplit multisplit_async(const K* keys, const V* values, std::uint64_t n, const Owner& owner,
                              K* keys_out, V* values_out, std::uint64_t* source_index_out,
                              std::uint64_t* host_offsets, cudaStream_t stream) {
  const unsigned shards = owner.num_shards();
  PendingSplit pending(shards, host_offsets, stream);
  if (n == 0) {
    std::fill(host_offsets, host_offsets + shards + 1, std::uint64_t(0));
    return pending;
  }
  const std::uint64_t tiles = (n + detail::tile_items - 1) / detail::tile_items;
  if (tiles >= (std::uint64_t(1) << 31)) throw std::invalid_argument("multisplit batch too large");
  // (shard, tile) counts shard-major, plus one entry that the scan turns into n.
  const std::uint64_t cells = std::uint64_t(shards) * tiles;
  pending.starts_ = cuda::make_pooled<std::uint64_t>(cells + 1, stream);
  std::uint64_t* starts = pending.starts_.data();
  cuda::check(cudaMemsetAsync(starts + cells, 0, sizeof(std::uint64_t), stream),
              "clearing the multisplit total");
  detail::split_count<<<unsigned(tiles), detail::split_block, 0, stream>>>(keys, n, owner, tiles,
                                                                          starts);
  cuda::check_launch("multisplit count");
  std::size_t temp_bytes = 0;
  cuda::check(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, starts, starts, cells + 1, stream),
              "sizing the multisplit scan");
  pending.temp_ = cuda::make_pooled<unsigned char>(temp_bytes, stream);
  cuda::check(cub::DeviceScan::ExclusiveSum(pending.temp_.data(), temp_bytes, starts, starts,
                                            cells + 1, stream),
              "multisplit scan");
  detail::split_scatter<<<unsigned(tiles), detail::split_block, 0, stream>>>(
      keys, values, n, owner, tiles, starts, keys_out, values_out, source_index_out);
  cuda::check_launch("multisplit scatter");
  pending.offsets_ = cuda::make_pooled<std::uint64_t>(shards + 1, stream);
  detail::split_shard_offsets<<<1, max_shards + 1, 0, stream>>>(starts, tiles, shards,
                                                                pending.offsets_.data());
  cuda::check_launch("multisplit offsets");
  cuda::check(cudaMemcpyAsync(host_offsets, pending.offsets_.data(),
                              (shards + 1) * sizeof(std::uint64_t), cudaMemcpyDeviceToHost, stream),
              "copying the multisplit offsets");
  return pending;
}

// The same, waited for: returns once the split is done (the offsets come
// back through pageable memory: one blocking copy).
template <class K, class V, class Owner>
SplitOffsets multisplit(const K* keys, const V* values, std::uint64_t n, const Owner& owner,
                        K* keys_out, V* values_out, std::uint64_t* source_index_out,
                        cudaStream_t stream) {
  std::vector<std::uint64_t> host_offsets(owner.num_shards() + 1);
  return multisplit_async(keys, values, n, owner, keys_out, values_out, source_index_out,
                          host_offsets.data(), stream)
      .wait();
}

}  // namespace metawarp::tables::distributed
