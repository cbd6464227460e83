#pragma once
// What the GPU benchmarks (bench_tables, bench_lookup) measure their tables
// against: the device's own ceilings (random 32-byte sector reads, random
// 8-byte CAS, device-to-device copy), measured in the same run, and the
// timing and report helpers they share.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/cuda/error.hpp"
#include "metawarp/cuda/event.hpp"
#include "metawarp/hash/fmix.hpp"

namespace metawarp::bench {

using std::uint64_t;

// Every timed call names this stream: the legacy default stream, which orders
// with the unqualified kernel launches and cudaDeviceSynchronize used here.
inline const cudaStream_t bench_stream = cudaStreamLegacy;

struct Ceilings {
  double sector_reads = 0;  // random 32-byte sector reads per second
  double cas = 0;           // random 8-byte CAS per second
  double copy_bytes = 0;    // device-to-device copy, bytes read+written per second
};

// Seconds taken by `work` (best of `reps`), `setup` run untimed before each.
inline double time_best(const std::function<void()>& work,
                        const std::function<void()>& setup = {}, int reps = 2) {
  metawarp::cuda::event start, stop;
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    if (setup) setup();
    metawarp::cuda::check(cudaDeviceSynchronize(), "benchmark setup");
    start.record(bench_stream);
    work();
    stop.record(bench_stream);
    stop.synchronize();
    best = std::min(best, double(stop.elapsed_ms_since(start)) / 1e3);
  }
  return best;
}

inline void report(const std::string& what, double ops, double seconds, double ceiling,
                   const char* ceiling_name) {
  const double rate = ops / seconds;
  std::printf("%-64s %8.3f G/s  %5.1f%% of %s\n", what.c_str(), rate / 1e9,
              100.0 * rate / ceiling, ceiling_name);
  std::fflush(stdout);
}

// ------------------------------------------------------------------- ceilings

__global__ void random_sector_reads(const uint4* data, uint64_t sectors, uint64_t n,
                                    unsigned long long* sink) {
  unsigned long long acc = 0;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += uint64_t(gridDim.x) * blockDim.x) {
    const uint64_t s = metawarp::hash::fmix64(i) % sectors;
    const uint4 a = __ldcg(data + 2 * s);  // both halves of one 32-byte sector
    const uint4 b = __ldcg(data + 2 * s + 1);
    acc += a.x ^ b.w;
  }
  if (acc == 0x12345) atomicAdd(sink, acc);  // keep the loads alive
}

__global__ void random_cas(unsigned long long* data, uint64_t words, uint64_t n) {
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += uint64_t(gridDim.x) * blockDim.x) {
    const uint64_t w = metawarp::hash::fmix64(i) % words;
    atomicCAS(data + w, 0ull, i);
  }
}

inline Ceilings measure_ceilings(uint64_t bytes) {
  Ceilings c;
  metawarp::cuda::device_buffer<uint4> data(bytes / 16);
  data.fill_bytes(0, bench_stream);
  metawarp::cuda::device_buffer<unsigned long long> sink(1);
  const uint64_t ops = uint64_t(1) << 28;
  const unsigned blocks = 132 * 16;
  double t = time_best([&] {
    random_sector_reads<<<blocks, 256>>>(data.data(), bytes / 32, ops, sink.data());
  });
  c.sector_reads = ops / t;
  report("ceiling: random 32-byte sector reads (" + std::to_string(bytes >> 20) + " MiB)", ops, t,
         c.sector_reads, "itself");
  t = time_best([&] {
    random_cas<<<blocks, 256>>>(reinterpret_cast<unsigned long long*>(data.data()), bytes / 8, ops);
  }, [&] { data.fill_bytes(0, bench_stream); });
  c.cas = ops / t;
  report("ceiling: random 8-byte CAS", ops, t, c.cas, "itself");
  metawarp::cuda::device_buffer<unsigned char> copy(bytes / 2);
  t = time_best([&] {
    metawarp::cuda::check(cudaMemcpyAsync(copy.data(), data.data(), bytes / 2, cudaMemcpyDeviceToDevice),
               "D2D copy");
  });
  c.copy_bytes = 2.0 * (bytes / 2) / t;
  std::printf("%-64s %8.1f GB/s (read + write)\n", "ceiling: device-to-device copy",
              c.copy_bytes / 1e9);
  return c;
}

}  // namespace metawarp::bench
