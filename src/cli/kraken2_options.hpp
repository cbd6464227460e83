#pragma once
// Kraken2's spellings of query options (docs/cli-query.md, "For Kraken2
// users"), registered on `metawarp query` and on `metawarp kraken2` alike,
// so each means one thing wherever it is given.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "pipeline/query/query.hpp"
#include "pipeline/query/samples.hpp"

namespace metawarp::cli {

// Flags that only state what metawarp finds out or does itself; checked,
// then dropped.
struct Kraken2Flags {
  bool paired = false;            // --paired: two reads files
  bool gzip_compressed = false;   // --gzip-compressed: detection is automatic
  bool bzip2_compressed = false;  // --bzip2-compressed: detection is automatic
  // Accepted without effect (docs/cli-query.md): metawarp classifies every
  // read in full, and reads its database into memory.
  bool quick = false;           // --quick
  bool memory_mapping = false;  // --memory-mapping
};

// The group --help lists these options under.
inline constexpr const char* kraken2_options_group = "Kraken2's options";

// Registers --paired, --gzip-compressed, --bzip2-compressed, --quick,
// --memory-mapping, --minimum-hit-groups, --minimum-base-quality,
// --use-names, --report-zero-counts, --use-mpa-style, --classified-out and
// --unclassified-out on `command` (their defaults: what `options` holds).
void add_kraken2_options(CLI::App& command, pipeline::QueryOptions& options, Kraken2Flags& flags);

// An option of Kraken2's registered only to be refused with `message` (a
// std::invalid_argument once the command line is parsed), so that it is
// neither taken for something else nor refused as unknown. `help` empty:
// hidden from --help.
void add_refused_option(CLI::App& command, const std::string& name, bool takes_value,
                        const std::string& help, const std::string& message);

// The options of kraken2_options_group given on the command line, by name.
std::vector<std::string> given_kraken2_options(const CLI::App& command);

// Throws std::invalid_argument for what cannot be honoured: --paired
// without two reads files (one file of pairs is --interleaved), a sample of
// one file with --paired, both compression flags (as Kraken2 refuses them),
// report variants without --report, --use-names without --kraken-output.
void check_kraken2_options(const Kraken2Flags& flags, const pipeline::QueryOptions& options,
                           const std::vector<pipeline::Sample>& samples);

}  // namespace metawarp::cli
