#pragma once
// Kraken2's spellings of query options (docs/cli-query.md, "For Kraken2
// users"), so a Kraken2 command line works where the meaning is the same
// and says what to use instead where it is not.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "pipeline/query.hpp"
#include "pipeline/samples.hpp"

namespace metawarp::cli {

// Flags that only state what metawarp finds out itself; checked, then dropped.
struct Kraken2Flags {
  bool paired = false;            // --paired: two reads files
  bool gzip_compressed = false;   // --gzip-compressed: detection is automatic
  bool bzip2_compressed = false;  // --bzip2-compressed: detection is automatic
  std::vector<std::string> minimum_hit_groups;  // given: refused, naming --hit-min
};

// Registers --paired, --gzip-compressed, --bzip2-compressed,
// --minimum-hit-groups, --use-names, --report-zero-counts, --use-mpa-style,
// --classified-out and --unclassified-out on `query`.
void add_kraken2_options(CLI::App& query, pipeline::QueryOptions& options, Kraken2Flags& flags);

// Throws std::invalid_argument for what cannot be honoured: --paired
// without two reads files (one file of pairs is --interleaved), a sample of
// one file with --paired, --minimum-hit-groups (no faithful mapping), report
// variants without --report, --use-names without --kraken-output.
void check_kraken2_options(const Kraken2Flags& flags, const pipeline::QueryOptions& options,
                           const std::vector<pipeline::Sample>& samples);

}  // namespace metawarp::cli
