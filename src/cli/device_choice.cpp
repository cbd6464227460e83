#include "cli/device_choice.hpp"

#include <cstdio>

#include "pipeline/gpu_available.hpp"

namespace metawarp::cli {

bool use_gpu(const std::string& device, const char* command, bool quiet) {
  if (device == "cpu") return false;
  // Not probed for an explicit gpu: CUDA's start then overlaps the load
  // (query: pipeline::load_for_gpu_query), and the executor says why not.
  if (device == "gpu") return true;
  const std::string why = pipeline::gpu_unavailable_reason();
  if (why.empty()) return true;
  if (!quiet) std::fprintf(stderr, "%s: %s; running on the CPU\n", command, why.c_str());
  return false;
}

}  // namespace metawarp::cli
