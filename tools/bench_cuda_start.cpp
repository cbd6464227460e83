// What CUDA costs a process before and after its work, on this host: the
// reference line for a small query's end-to-end time (docs/benchmarks.md,
// issue 13). Creates the context, optionally pins host memory (in 8 buffers,
// as the query's 8 lanes do) and allocates device memory, prints how long
// each took and exits without freeing: the caller times the whole process,
// so what is left after the printed times is start-up and the driver's
// teardown at exit.
//
//   bench_cuda_start [PINNED_MIB [DEVICE_MIB]]
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

bool ok(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return true;
  std::fprintf(stderr, "bench_cuda_start: %s: %s\n", what, cudaGetErrorString(status));
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t pinned_mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 0;
  const std::size_t device_mib = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 0;
  const auto start = std::chrono::steady_clock::now();
  if (!ok(cudaFree(nullptr), "creating the context")) return 1;
  const double context = seconds_since(start);
  const auto allocating = std::chrono::steady_clock::now();
  constexpr int buffers = 8;
  for (int i = 0; i < buffers && pinned_mib > 0; ++i) {
    void* host = nullptr;
    if (!ok(cudaHostAlloc(&host, (pinned_mib << 20) / buffers, cudaHostAllocDefault),
            "pinning host memory"))
      return 1;
  }
  void* device = nullptr;
  if (device_mib > 0 && !ok(cudaMalloc(&device, device_mib << 20), "allocating device memory"))
    return 1;
  std::printf("context %.3f s, %zu MiB pinned + %zu MiB on the device %.3f s\n", context,
              pinned_mib, device_mib, seconds_since(allocating));
  return 0;
}
