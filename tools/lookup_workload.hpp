#pragma once
// The query's feature lookups, as the benchmarks of the feature -> list lookup
// replay them (bench_lookup.cu on the GPU, bench_host_lookup.cpp on the
// host): every read's sketch features, sketched with the database's
// parameters, in the order the query issues them (read by read; mate 1's
// windows, then mate 2's; a window's features in sketch order).
#include <cstdint>
#include <string>
#include <vector>

#include "metawarp/sketch/types.hpp"

namespace metawarp::tools {

// The benchmarks' command line: DATABASE READS_1 [READS_2] [--max-reads N]
// [--threads T] [--repeat R].
struct LookupBenchOptions {
  std::string database, mates1, mates2;
  std::uint64_t max_reads = 0;  // 0: all
  unsigned threads = 0;         // host threads; 0: all cores
  int repeat = 3;
};
// Throws std::invalid_argument starting with "usage: <program> ..." when the
// arguments do not fit.
LookupBenchOptions parse_lookup_bench_options(int argc, char** argv, const char* program);

struct LookupWorkload {
  std::vector<sketch::feature_t> features;     // all lookups, in query order
  std::vector<std::uint64_t> window_offsets;   // windows + 1: a window's features
  std::vector<std::uint64_t> read_windows;     // reads + 1: a read's windows
  std::uint64_t windows() const { return window_offsets.size() - 1; }
  std::uint64_t reads() const { return read_windows.size() - 1; }
};

// Reads `mates1` (and `mates2` when not empty: pairs) up to `max_reads` reads
// or pairs (0: all), and sketches them on `threads` threads. Throws what the
// readers throw (io::InputError) for bad input.
LookupWorkload sketch_reads(const std::string& mates1, const std::string& mates2,
                            const sketch::SketchParams& params, std::uint64_t max_reads,
                            unsigned threads);

}  // namespace metawarp::tools
