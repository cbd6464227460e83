// The test runner shared by all test executables. With METAWARP_TEST_NEEDS_GPU
// it first checks for a usable CUDA device and, where there is none, prints the
// reason and exits with 77, which ctest reports as "skipped" (SKIP_RETURN_CODE).
#if __has_include(<catch2/catch_session.hpp>)
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

#ifdef METAWARP_TEST_NEEDS_GPU
#include <cstdio>
#include <cuda_runtime_api.h>

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
#endif

int main(int argc, char* argv[]) {
#ifdef METAWARP_TEST_NEEDS_GPU
  if (!usable_gpu_present()) return skip_exit_code;
#endif
  return Catch::Session().run(argc, argv);
}
