#pragma once
// --summary-json FILE of `build` and `query`: what the run read, counted and
// made, its rates and times, as one JSON object (docs/cli.md, "Run
// summary"). The commands check its path with their other outputs before any
// work (BuildOptions/QueryOptions::run_outputs) and open it as a query output
// (pipeline::OutputFile) before they start: it appears complete when the run
// succeeds, and a failed run leaves none, an older one removed.
#include <optional>
#include <string>
#include <vector>

#include "cli/json_object.hpp"
#include "db/database.hpp"
#include "pipeline/build/build_options.hpp"
#include "pipeline/query/query.hpp"
#include "pipeline/query/gpu_query.hpp"
#include "pipeline/query/samples.hpp"

namespace metawarp::cli {

// The option, for messages and for the output checks.
inline constexpr const char* summary_json_option = "--summary-json";

// What a query did: its samples (one, unnamed, for reads given on the command
// line) and each one's result, in order.
struct QueryRun {
  std::string database_path;
  const db::Database* database = nullptr;  // its parameters and targets
  bool gpu = false;
  bool interleaved = false;
  std::vector<pipeline::Sample> samples;
  std::vector<pipeline::QuerySummary> results;
  double elapsed_seconds = 0;  // the whole command, the database load included
  std::optional<pipeline::GpuQueryStats> gpu_stats;  // the resident GPU engine's
};

JsonObject query_summary(const QueryRun& run);

JsonObject build_summary(const std::string& database_path, const pipeline::BuildOptions& options,
                         const pipeline::BuildSummary& summary, bool gpu, double elapsed_seconds);

}  // namespace metawarp::cli
