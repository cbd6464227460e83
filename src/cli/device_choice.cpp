#include "cli/device_choice.hpp"

#include <cstdio>

#include "pipeline/gpu_available.hpp"

namespace metawarp::cli {

bool use_gpu(const std::string& device, const char* command, bool quiet) {
  if (device == "cpu") return false;
  const std::string why = pipeline::gpu_unavailable_reason();
  if (device == "gpu" || why.empty()) return true;
  if (!quiet) std::fprintf(stderr, "%s: %s; running on the CPU\n", command, why.c_str());
  return false;
}

}  // namespace metawarp::cli
