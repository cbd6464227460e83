#include "cli/device_choice.hpp"

#include <algorithm>
#include <cstdio>

#include "pipeline/gpu_available.hpp"

namespace metawarp::cli {

DeviceChoice choose_device(const Workload& work, const DeviceRates& rates) {
  if (!work.gpu_asked.empty()) return DeviceChoice{true, work.gpu_asked};
  const double bytes = double(work.input_bytes);
  const unsigned threads = std::clamp(work.threads, 1u, rates.cpu_threads_measured);
  const double cpu = bytes / (rates.cpu_bytes_per_thread_second * threads);
  const double gpu = gpu_start_seconds + bytes / rates.gpu_bytes_per_second;
  char why[200];
  std::snprintf(why, sizeof why,
                "input %.1f MB on %u threads: about %.2f s on the CPU, %.2f s on a GPU "
                "(%.2f s of it CUDA's start-up)",
                bytes / 1e6, threads, cpu, gpu, gpu_start_seconds);
  return DeviceChoice{gpu < cpu, why};
}

bool use_gpu(const std::string& device, const char* command, bool quiet, bool verbose,
             const Workload& work, const DeviceRates& rates) {
  if (device == "cpu") return false;
  const std::string unavailable = pipeline::gpu_unavailable_reason();
  if (device == "gpu") return true;
  if (!unavailable.empty()) {
    // A host without a GPU is an ordinary place to run: a plain line, not the
    // driver's words, which read like a broken install (they are for -v).
    if (!quiet)
      std::fprintf(stderr, "%s: no GPU found: running on the CPU%s\n", command,
                   verbose ? (" (" + unavailable + ")").c_str() : "");
    return false;
  }
  const DeviceChoice choice = choose_device(work, rates);
  if (verbose)
    std::fprintf(stderr, "%s: --device auto: the %s (%s)\n", command,
                 choice.gpu ? "GPU" : "CPU", choice.why.c_str());
  return choice.gpu;
}

}  // namespace metawarp::cli
