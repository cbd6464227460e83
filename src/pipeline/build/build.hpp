#pragma once
// `metawarp build`: reference files -> sketches -> database, by one driver
// (build.cpp) whatever executes the sketching: the CPU and the GPU executors
// (build_executor.hpp) give byte-identical databases.
#include <filesystem>

#include "db/database.hpp"
#include "pipeline/build/build_executor.hpp"
#include "pipeline/build/build_options.hpp"

namespace metawarp::pipeline {

// Reads, sketches and finalizes with the executor `make` makes, in as many
// partitions as options.partitions says (0: as --partition-size and `needed`,
// the executor's own memory, need; each partition reads the references
// again); the result does not depend on the partitions. Throws
// io::InputError / std::runtime_error with a message naming the file, record
// and problem (or what to change, for an executor that cannot run).
db::Database build_database(const BuildOptions& options, BuildSummary* summary = nullptr,
                            const MakeBuildExecutor& make = make_cpu_build_executor,
                            const PartitionsNeeded& needed = {});

// The whole command: checks that the database path may be written and is
// none of the inputs before any work, builds, and writes the database
// atomically; in partitions, each part is written (db::PartWriter) and freed
// as it completes, so that the host holds one part at a time, and the file is
// the same. Returns the summary.
BuildSummary run_build(const BuildOptions& options, const std::filesystem::path& database,
                       const MakeBuildExecutor& make = make_cpu_build_executor,
                       const PartitionsNeeded& needed = {});

}  // namespace metawarp::pipeline
