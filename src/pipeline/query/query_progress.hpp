#pragma once
// The progress line of a running query (pipeline/progress.hpp decides where
// and how often it is printed):
//   query: 1.25 M pairs, 0.48 M pairs/s, 41% of reads_R1.fq.gz, ETA 12 s
// The share and ETA compare the bytes taken from the first reads file
// (compressed bytes for gzip) with its size; for standard input or a pipe,
// whose size is not known, the line stops after the rate.
#include <cstdint>
#include <optional>
#include <string>

#include "pipeline/progress.hpp"
#include "pipeline/query/query.hpp"

namespace metawarp::pipeline {

// What one progress line says.
struct QueryProgressState {
  std::uint64_t reads = 0;       // reads or pairs written so far
  double seconds = 0;            // since the query started
  std::uint64_t input_bytes = 0;  // taken from the first reads file
  std::optional<std::uint64_t> input_size;  // its size, when it is a regular file
};

// The line, without a line end. `label` starts it ("query", "query: sample
// 2/5 gut_A"); `input_name` names the first reads file.
std::string query_progress_line(const std::string& label, bool paired,
                                const std::string& input_name, const QueryProgressState& state);

// Follows one query while it exists: hand counters() to run_query.
class QueryProgress {
 public:
  QueryProgress(ProgressStyle style, std::string label, const QueryOptions& options);
  QueryCounters& counters() { return counters_; }

 private:
  QueryCounters counters_;
  ProgressReporter reporter_;  // last: stops before the counters go
};

}  // namespace metawarp::pipeline
