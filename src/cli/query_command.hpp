#pragma once
// `metawarp query`'s options, and the parts of it `metawarp serve` shares:
// the device options (where the database goes) and what a query with
// nothing else given loads, so that a server loads ahead exactly what its
// first default query would ask for.
#include <chrono>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/kraken2_options.hpp"
#include "cli/query_databases.hpp"
#include "pipeline/query/gpu_query.hpp"
#include "pipeline/query/partitioned_query.hpp"
#include "pipeline/query/query.hpp"
#include "pipeline/query/samples.hpp"
#include "report/read_profile.hpp"

namespace metawarp::cli {

struct QueryCommand {
  std::string database;
  pipeline::QueryOptions options;
  std::string lowest = "sequence";
  std::string highest = "root";
  std::string abundance_rank = "species";
  double confidence = 0;  // --confidence, checked and stored in millionths
  bool quiet = false;
  bool verbose = false;
  // Many samples: a sheet and/or --sample groups, outputs under output_dir.
  std::string sample_sheet;
  std::vector<std::vector<std::string>> sample_groups;
  std::string output_dir;
  std::vector<pipeline::Sample> samples;  // filled by check_before_work
  // The database's read-placement profiles made with this query's classifier
  // options (check_before_work; options.abundance_profiles points here).
  std::vector<report::ReadProfile> profiles;
  std::string device = "auto";
  pipeline::GpuQueryOptions gpu;
  int gpu_device = 0;    // --gpu: the one-device form of --gpus
  std::string gpu_list;  // --gpus N|LIST
  bool batch_size_given = false;
  bool gpu_lanes_given = false;
  bool output_given = false;
  pipeline::PartitionOptions partitions;  // the database part by part (CPU)
  bool mpi = false;  // --mpi: over the ranks of an MPI job (pipeline/query/mpi_engine.hpp)
  Kraken2Flags kraken2;  // Kraken2's spellings (cli/kraken2_options.hpp)
  std::string server;    // --server SOCKET: run by `metawarp serve` (cli/query_client.hpp)
  std::string summary_json;  // --summary-json FILE (cli/run_summary.hpp)
  std::chrono::steady_clock::time_point start;  // when the command started
  // `metawarp kraken2`: Kraken2's lines on stderr (cli/kraken2_messages.hpp)
  // instead of metawarp's, which `quiet` then silences.
  bool kraken2_messages = false;

  bool many_samples() const { return !sample_sheet.empty() || !sample_groups.empty(); }
};

// Reads may come from stdin ("-"); anything else must be an existing file.
CLI::Validator existing_file_or_stdin();

// -t, --device, --gpu, --gpus, --shards-per-gpu, --gpu-lanes on `sub`, and,
// in its callback, what they say (the GPU list, whether lanes were given).
void add_device_options(CLI::App& sub, QueryCommand& cmd);
void read_device_options(const CLI::App& sub, QueryCommand& cmd);
// --partitions, --max-memory, --hit-memory: the database read in parts.
void add_partition_options(CLI::App& sub, QueryCommand& cmd);

// What `cmd` loads with its classifier options resolved and its threads and
// lanes bounded as a query does (`command` names it in notices).
DatabaseLoad default_query_load(QueryCommand& cmd, const std::string& command);

// Runs the query `cmd` describes (checked first, before anything is loaded or
// written), its database from `databases`: `metawarp query`'s and
// `metawarp kraken2`'s work once their command lines are read.
void run_query(QueryCommand& cmd, QueryDatabases& databases);

}  // namespace metawarp::cli
