#pragma once
// The middle step of multi-value retrieval: per-key counts -> offsets.
#include <cub/device/device_scan.cuh>
#include <cuda_runtime_api.h>

#include <cstdint>

#include "metawarp/cuda/error.hpp"
#include "metawarp/cuda/pooled_buffer.hpp"

namespace metawarp::tables {

// In place: offsets[0..n) holds counts on entry (offsets[n] is ignored); once
// `stream` reaches it, offsets[i] is the exclusive prefix sum, offsets[n] the
// total, and *total_out the total too. Enqueued only when total_out is
// page-locked (pinned): then several GPUs' scans run side by side. `temp` is the scan's scratch
// (grown here from the current device's pool, in `stream`'s order); it must
// live until the stream is past the scan.
inline void counts_to_offsets_async(std::uint64_t* offsets, std::uint64_t n, cudaStream_t stream,
                                    cuda::pooled_buffer<unsigned char>& temp,
                                    std::uint64_t* total_out) {
  cuda::check(cudaMemsetAsync(offsets + n, 0, sizeof(std::uint64_t), stream),
              "clearing the offsets sentinel");
  std::size_t temp_bytes = 0;
  cuda::check(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, offsets, offsets, n + 1, stream),
              "sizing the offsets scan");
  cuda::reserve_pooled(temp, temp_bytes, stream);
  cuda::check(cub::DeviceScan::ExclusiveSum(temp.data(), temp_bytes, offsets, offsets, n + 1, stream),
              "scanning value counts into offsets");
  cuda::check(cudaMemcpyAsync(total_out, offsets + n, sizeof(std::uint64_t),
                              cudaMemcpyDeviceToHost, stream),
              "reading the retrieval total");
}

// The same, waited for: returns the total. The scratch comes from the pool
// (a cudaMalloc and cudaFree per call cost more than the scan of a small batch).
inline std::uint64_t counts_to_offsets(std::uint64_t* offsets, std::uint64_t n,
                                       cudaStream_t stream) {
  cuda::pooled_buffer<unsigned char> temp;
  std::uint64_t total = 0;
  counts_to_offsets_async(offsets, n, stream, temp, &total);
  cuda::check(cudaStreamSynchronize(stream), "waiting for the offsets scan");
  return total;
}

}  // namespace metawarp::tables
