#include "cli/thread_limit.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <thread>

namespace metawarp::cli {
namespace {

constexpr unsigned threads_per_core = 4;  // room for I/O waits, no more
constexpr std::uint32_t lane_ceiling = 64;

}  // namespace

unsigned available_cores() { return std::max(1u, std::thread::hardware_concurrency()); }

unsigned max_threads(unsigned cores) {
  return std::clamp(threads_per_core * std::max(1u, cores), 1u, thread_ceiling);
}

Bounded bound_threads(std::string_view command, unsigned requested, unsigned cores) {
  if (requested == 0) throw std::invalid_argument("--threads must be at least 1");
  const unsigned limit = max_threads(cores);
  if (requested <= limit) return {requested, {}};
  return {limit, std::string(command) + ": --threads " + std::to_string(requested) +
                     " is more than " + std::to_string(threads_per_core) + " x the " +
                     std::to_string(cores) + " cores (at most " +
                     std::to_string(thread_ceiling) + "); using " + std::to_string(limit)};
}

Bounded bound_gpu_lanes(std::uint32_t requested, unsigned threads, bool given) {
  if (requested == 0) throw std::invalid_argument("--gpu-lanes must be at least 1");
  const std::uint32_t limit = std::min<std::uint32_t>(lane_ceiling, std::max(1u, threads));
  if (requested <= limit) return {requested, {}};
  if (!given) return {limit, {}};
  return {limit, "query: --gpu-lanes " + std::to_string(requested) + " is more than " +
                     (limit == lane_ceiling ? std::to_string(lane_ceiling)
                                            : "the " + std::to_string(threads) +
                                                  " worker threads can use") +
                     "; using " + std::to_string(limit)};
}

void print_notice(const Bounded& bounded, bool quiet) {
  if (!quiet && !bounded.notice.empty()) std::fprintf(stderr, "%s\n", bounded.notice.c_str());
}

}  // namespace metawarp::cli
