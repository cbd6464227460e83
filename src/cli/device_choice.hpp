#pragma once
// --device auto|cpu|gpu, shared by `build` and `query`: one rule
// (docs/cli.md "--device auto").
#include <cstdint>
#include <string>

namespace metawarp::cli {

// What `auto` weighs: the input's bytes (pipeline::estimate_input_bytes:
// compressed files counted 5x) on `threads` CPU threads, against one GPU
// that first pays CUDA's start-up.
struct Workload {
  std::uint64_t input_bytes = 0;
  unsigned threads = 1;
  // Not empty: the GPU wherever one is usable, for this reason (GPU options
  // given, a server that pays the start-up once), whatever the input.
  std::string gpu_asked;
};

// How fast each side processes input, measured on the device (docs/cli.md
// says where each number comes from).
// The CPU's rate was measured on `cpu_threads_measured` threads and is not
// extrapolated beyond them: past them memory bandwidth, not threads, bounds
// the lookups, and a larger database than the measurement's slows the CPU's
// random reads far more than the GPU's, so a host with many cores must not
// send a large input to the CPU on a linear guess.
struct DeviceRates {
  double cpu_bytes_per_thread_second;
  unsigned cpu_threads_measured;
  double gpu_bytes_per_second;
};
// A process's CUDA context, pinned buffers and teardown: 0.47 s in issue 28
// (a build of 120 MB: CPU 0.36 s, one GPU 0.83 s), 0.32-0.50 s for a process
// that only creates the context (tools/bench_cuda_start, docs/benchmarks.md).
inline constexpr double gpu_start_seconds = 0.5;
// Build: 120 MB of genomes in 0.36 s on 32 threads (10.4 MB/s a thread);
// 9.9 Gbp in memory in 4.94 s on one H100 (2.0 GB/s) (issue 28).
inline constexpr DeviceRates build_rates{10.4e6, 32, 2.0e9};
// Query: 1.37 M pairs, 864 MB of FASTQ, in 0.83 s on 16 threads (65 MB/s a
// thread) and 0.91 s on one H100, start-up included (issue 29: 2.1 GB/s).
inline constexpr DeviceRates query_rates{65e6, 16, 2.1e9};

struct DeviceChoice {
  bool gpu = false;
  std::string why;  // the estimate in words, for -v
};
// The rule: the GPU when its start-up plus the input at its rate takes less
// than the input on the CPU's threads (at most cpu_threads_measured of them).
DeviceChoice choose_device(const Workload& work, const DeviceRates& rates);

// True for the GPU. auto takes the GPU when one is usable and the rule
// (choose_device) picks it, and otherwise says on stderr, in a line of its
// own (unless quiet), that `command` runs on the CPU because there is no GPU
// (the driver's words only when verbose); with verbose it says what the rule
// chose and why. An explicit gpu is taken as asked and fails later, saying
// why, when none is usable. Called before any progress line starts, so that
// the notice never lands inside one.
bool use_gpu(const std::string& device, const char* command, bool quiet, bool verbose,
             const Workload& work, const DeviceRates& rates);

}  // namespace metawarp::cli
