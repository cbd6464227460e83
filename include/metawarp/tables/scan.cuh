#pragma once
// The middle step of multi-value retrieval: per-key counts -> offsets.
#include <cub/device/device_scan.cuh>
#include <cuda_runtime_api.h>

#include <cstdint>

#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/cuda/error.hpp"

namespace metawarp::tables {

// In place: offsets[0..n) holds counts on entry (offsets[n] is ignored); on
// return offsets[i] is the exclusive prefix sum and offsets[n] the total,
// which is also returned (synchronises `stream`).
inline std::uint64_t counts_to_offsets(std::uint64_t* offsets, std::uint64_t n,
                                       cudaStream_t stream) {
  cuda::check(cudaMemsetAsync(offsets + n, 0, sizeof(std::uint64_t), stream),
              "clearing the offsets sentinel");
  std::size_t temp_bytes = 0;
  cuda::check(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, offsets, offsets, n + 1, stream),
              "sizing the offsets scan");
  cuda::device_buffer<unsigned char> temp(temp_bytes);
  cuda::check(cub::DeviceScan::ExclusiveSum(temp.data(), temp_bytes, offsets, offsets, n + 1, stream),
              "scanning value counts into offsets");
  std::uint64_t total = 0;
  cuda::check(cudaMemcpyAsync(&total, offsets + n, sizeof(total), cudaMemcpyDeviceToHost, stream),
              "reading the retrieval total");
  cuda::check(cudaStreamSynchronize(stream), "waiting for the offsets scan");
  return total;
}

}  // namespace metawarp::tables
