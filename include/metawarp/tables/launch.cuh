#pragma once
// Launching "one cooperative group per input item" kernels. Every bulk table
// operation is such a kernel: group i handles item i (grid-stride, so any n up
// to 2^64 works with a bounded grid).
#include <cooperative_groups.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>

#include "metawarp/cuda/error.hpp"
#include "metawarp/cuda/grid.hpp"

namespace metawarp::tables {

namespace cg = cooperative_groups;

namespace detail {

template <int GroupSize, class Op>
__global__ void group_per_item_kernel(std::uint64_t n, Op op) {
  const auto group = cg::tiled_partition<GroupSize>(cg::this_thread_block());
  const std::uint64_t first = (std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / GroupSize;
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x / GroupSize;
  for (std::uint64_t i = first; i < n; i += stride) op(group, i);
}

}  // namespace detail

inline constexpr int launch_block_size = 256;

// How many blocks a group-per-item kernel gets. per_item: enough for one
// group per item (up to 2^20 blocks). resident: as many as the device runs at
// once (SMs x 2048 threads), each looping grid-stride: the bucketed cuckoo
// insert measured faster so on an H100 (issue 14: 9.04 vs 8.65 G/s at load
// 0.9), the open-addressing tables slower (their finds) or the same.
enum class GridShape { per_item, resident };

inline unsigned resident_blocks(unsigned block_threads) {
  int device = 0, sms = 0;
  cuda::check(cudaGetDevice(&device), "cudaGetDevice");
  cuda::check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device),
              "reading the SM count");
  return unsigned(std::max(sms, 1)) * std::max(1u, 2048u / block_threads);
}

// Runs op(group, i) for i in [0, n) with one group of GroupSize threads per i.
template <int GroupSize, class Op>
void launch_group_per_item(std::uint64_t n, cudaStream_t stream, const Op& op,
                           const char* what = "table operation",
                           GridShape shape = GridShape::per_item) {
  if (n == 0) return;
  const unsigned groups_per_block = launch_block_size / GroupSize;
  const unsigned blocks =
      shape == GridShape::resident
          ? std::min(resident_blocks(launch_block_size), cuda::blocks_for(n, groups_per_block))
          : cuda::blocks_for(n, groups_per_block);
  detail::group_per_item_kernel<GroupSize><<<blocks, launch_block_size, 0, stream>>>(n, op);
  cuda::check_launch(what);
}

}  // namespace metawarp::tables

namespace metawarp::tables {
namespace detail {

// One thread per item; every thread of a warp runs the same number of
// iterations (valid=false past n) so warp-wide votes inside op are safe.
template <class Op>
__global__ void thread_per_item_kernel(std::uint64_t n, Op op) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  const std::uint64_t rounded = (n + stride - 1) / stride * stride;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < rounded;
       i += stride) {
    op(i, i < n);
  }
}

}  // namespace detail

// Runs op(i, valid) for i over [0, n) rounded up to whole grid strides.
template <class Op>
void launch_thread_per_item(std::uint64_t n, cudaStream_t stream, const Op& op,
                            const char* what = "table scan") {
  if (n == 0) return;
  const std::uint64_t blocks =
      std::min<std::uint64_t>((n + launch_block_size - 1) / launch_block_size, 1u << 16);
  detail::thread_per_item_kernel<<<unsigned(blocks), launch_block_size, 0, stream>>>(n, op);
  cuda::check_launch(what);
}

// Warp-aggregated atomic increment: the active lanes with `take` get
// consecutive positions from *cursor with one atomic per warp.
__device__ __forceinline__ std::uint64_t warp_reserve(std::uint64_t* cursor, bool take) {
  const unsigned mask = __ballot_sync(__activemask(), take);
  if (!take) return 0;
  const int lane = threadIdx.x % 32;
  const int leader = __ffs(mask) - 1;
  unsigned long long base = 0;
  if (lane == leader) base = atomicAdd(reinterpret_cast<unsigned long long*>(cursor),
                                       (unsigned long long)__popc(mask));
  base = __shfl_sync(mask, base, leader);
  return base + __popc(mask & ((1u << lane) - 1u));
}

}  // namespace metawarp::tables
