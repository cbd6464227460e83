#include "cli/device_choice.hpp"

#include <cstdio>

#include "pipeline/gpu_available.hpp"

namespace metawarp::cli {

bool use_gpu(const std::string& device, const char* command, bool quiet, bool verbose) {
  if (device == "cpu") return false;
  const std::string why = pipeline::gpu_unavailable_reason();
  if (device == "gpu" || why.empty()) return true;
  // A host without a GPU is an ordinary place to run: a plain line, not the
  // driver's words, which read like a broken install (they are for -v).
  if (!quiet)
    std::fprintf(stderr, "%s: no GPU found: running on the CPU%s\n", command,
                 verbose ? (" (" + why + ")").c_str() : "");
  return false;
}

}  // namespace metawarp::cli
