#pragma once
// Bounds on the thread and lane counts a command starts, one rule for
// `build` and `query`: starting tens of thousands of threads exhausts the
// process (query aborted, build hung) long before it could help.
#include <cstdint>
#include <string>
#include <string_view>

namespace metawarp::cli {

// The most threads a command starts, whatever the cores.
inline constexpr unsigned thread_ceiling = 1024;

// The most worker threads a command starts: 4 x the cores, at most 1024.
unsigned max_threads(unsigned cores);

// A count as the command will use it, and the notice to print when it
// differs from what was asked (empty otherwise).
struct Bounded {
  unsigned value = 0;
  std::string notice;
};

// --threads: 0 is an error (std::invalid_argument); above max_threads(cores)
// it is clamped, with a notice naming the command ("build: --threads 50000
// is more than 4 x the 2 cores; using 8").
Bounded bound_threads(std::string_view command, unsigned requested, unsigned cores);

// --gpu-lanes: 0 is an error; more than 64, or more than the worker threads
// (which never use more lanes than there are workers), is clamped. The
// notice is given only when the value was asked for (`given`), since the
// default may exceed a small thread count.
Bounded bound_gpu_lanes(std::uint32_t requested, unsigned threads, bool given);

// The cores this process may use (at least 1).
unsigned available_cores();

// Prints a Bounded's notice on stderr, unless it is empty or `quiet`.
void print_notice(const Bounded& bounded, bool quiet);

}  // namespace metawarp::cli
