#pragma once
// Where `query` gets its database: a process of its own loads it (and, for
// the GPU, uploads it) for its one run; `metawarp serve` holds one from query
// to query, loads anew only when a query needs it another way (another
// file, the file changed since, the CPU instead of the GPU, other GPUs or
// lanes), and only remakes the engine's options for other classifier options.
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>

#include "db/database.hpp"
#include "db/partial_load.hpp"
#include "pipeline/query/classifier.hpp"
#include "pipeline/query/gpu_query.hpp"
#include "pipeline/query/mpi_engine.hpp"
#include "pipeline/query/partitioned_query.hpp"
#include "pipeline/query/query.hpp"
#include "pipeline/query/query_buffers.hpp"

namespace metawarp::cli {

// A database loaded with the engine that classifies on it: whole (the
// resident engines, CPU or GPU), or its metadata, checked and planned to be
// read in parts (the streamed engine, its hits found on the CPU or the GPU).
struct LoadedForQuery {
  std::unique_ptr<db::Database> database;          // whole
  std::unique_ptr<db::PartialDatabase> parts;      // read in parts
  std::unique_ptr<pipeline::GpuHitCollector> gpu_collector;  // the streamed engine's, on the GPU
  std::unique_ptr<pipeline::QueryEngine> cpu_engine;
  std::unique_ptr<pipeline::PartitionedQueryEngine> streamed_engine;
  std::unique_ptr<pipeline::MpiQueryEngine> mpi_engine;  // its part, the others on other ranks
  std::unique_ptr<pipeline::GpuQueryEngine> gpu_engine;  // declared last: goes first
  const pipeline::QueryEngine* engine() const {
    if (gpu_engine) return gpu_engine.get();
    if (streamed_engine) return streamed_engine.get();
    if (mpi_engine) return mpi_engine.get();
    return cpu_engine.get();
  }
  // The targets, taxonomy and parameters (the whole database's or the parts').
  const db::Database& metadata() const {
    if (mpi_engine) return mpi_engine->metadata();
    return database ? *database : parts->metadata();
  }
};

// Everything a loaded database and its engine depend on.
struct DatabaseLoad {
  std::string path;
  bool gpu = false;
  pipeline::ClassifierOptions classifier;  // the engine's (pipeline::engine_options)
  pipeline::GpuQueryOptions gpu_options;   // with gpu
  pipeline::PartitionOptions partitions;   // enabled: read in parts
  unsigned threads = 1;                    // the query's (the parts' plan counts them)
  bool mpi = false;                        // this rank's part of an MPI job (rank 0's)
};

// Loads the file and makes the engine (for the GPU: the index is uploaded
// while the file is read); with partitions, checks the file and plans its
// parts (pipeline::plan_partitions: its errors name the options); with mpi,
// loads rank 0's part and agrees with the other ranks on theirs.
LoadedForQuery load_for_query(const DatabaseLoad& load);

struct HeldDatabase {
  std::shared_ptr<const LoadedForQuery> loaded;
  bool loaded_before = false;  // held from an earlier query: nothing was read now
};

class QueryDatabases {
 public:
  virtual ~QueryDatabases() = default;
  // The database as `load` says; any thread, one query at a time.
  virtual HeldDatabase get(const DatabaseLoad& load) = 0;
  // The batches' and workers' memory, kept from query to query.
  virtual pipeline::QueryBuffers& buffers() = 0;
};

// A server's: holds the last database it loaded.
class ResidentDatabases final : public QueryDatabases {
 public:
  HeldDatabase get(const DatabaseLoad& load) override;
  pipeline::QueryBuffers& buffers() override { return buffers_; }
  // Whether a database is held.
  bool holds() const { return held_ != nullptr; }

 private:
  // The file as it was when loaded: a database rebuilt in place (a new file
  // renamed over it) or changed is loaded again.
  struct FileIdentity {
    dev_t device = 0;
    ino_t inode = 0;
    off_t size = 0;
    std::int64_t modified_ns = 0;
    bool operator==(const FileIdentity&) const = default;
  };
  static FileIdentity identify(const std::string& path);
  bool same_database(const DatabaseLoad& load, const FileIdentity& file) const;

  std::shared_ptr<LoadedForQuery> held_;
  DatabaseLoad held_load_;
  FileIdentity held_file_;
  pipeline::QueryBuffers buffers_;
};

}  // namespace metawarp::cli

namespace metawarp::cli {

// A query process's own: loads for each call (a process makes one).
class OwnDatabases final : public QueryDatabases {
 public:
  HeldDatabase get(const DatabaseLoad& load) override {
    return {std::make_shared<const LoadedForQuery>(load_for_query(load)), false};
  }
  pipeline::QueryBuffers& buffers() override { return buffers_; }

 private:
  pipeline::QueryBuffers buffers_;
};

}  // namespace metawarp::cli
