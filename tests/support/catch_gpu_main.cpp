// The runner of the GPU test executables: it first checks for a usable CUDA
// device and, where there is none, prints the reason and exits with 77, which
// ctest reports as "skipped" (SKIP_RETURN_CODE).
#include <cuda_runtime_api.h>

#include <cstdio>

#include "catch_session.hpp"

namespace {
constexpr int skip_exit_code = 77;

bool usable_gpu_present() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    std::printf("SKIPPED: no usable CUDA device (%s)\n",
                err != cudaSuccess ? cudaGetErrorString(err) : "0 devices");
    return false;
  }
  return true;
}
}  // namespace

int main(int argc, char* argv[]) {
  if (!usable_gpu_present()) return skip_exit_code;
  return run_catch_session(argc, argv);
}
