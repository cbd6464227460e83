#pragma once
// `metawarp build`'s command, and the build it runs: `metawarp
// kraken2-build --build` fills the same command from a Kraken2 database
// folder and runs it the same way.
#include <string>

#include "pipeline/build/build_options.hpp"

namespace metawarp::cli {

struct BuildCommand {
  std::string database;
  pipeline::BuildOptions options;
  std::string device = "auto";
  bool verbose = false;  // the executor's stage times too
  std::string table = "multi-value";
  std::string gpus;              // --gpus N|LIST; empty: --gpu alone
  unsigned shards_per_gpu = 1;
  std::string summary_json;      // --summary-json FILE (cli/run_summary.hpp)
  bool sync = false;             // --sync: the default, said explicitly
  bool no_sync = false;          // --no-sync (docs/reliability.md)
};

// Checks what the command asks for (before any work), builds the database,
// writes the summary and prints the build's lines and warnings (unless
// options.quiet).
void run_build(BuildCommand& cmd);

}  // namespace metawarp::cli
