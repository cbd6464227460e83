#pragma once
// Turning CUDA error codes into exceptions. Every runtime call in metawarp goes
// through check() so a failure names what was attempted, not just a code.
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

#include "metawarp/config.hpp"

namespace metawarp::cuda {

// Throws std::runtime_error "<what> failed: <CUDA's description>" on error.
inline void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    // Clear the sticky "last error" so a caller that catches can continue.
    (void)cudaGetLastError();
    throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(status));
  }
}

// Checks that the most recent kernel launch was accepted (bad configuration,
// missing device code for this architecture, ...).
inline void check_launch(const char* kernel_name) {
  check(cudaGetLastError(), (std::string("launching kernel ") + kernel_name).c_str());
}

}  // namespace metawarp::cuda
