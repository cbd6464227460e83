#include "cli/query_databases.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "pipeline/out_of_memory.hpp"
#include "pipeline/process_memory.hpp"

namespace metawarp::cli {

namespace {

// The streamed engine on the parts of the file: --max-memory counts what the
// process holds already, measured with a classifier made, as the query holds
// one (its options out of range are refused here, before any output is
// touched).
LoadedForQuery load_in_parts(const DatabaseLoad& load) {
  LoadedForQuery loaded;
  loaded.parts = std::make_unique<db::PartialDatabase>(load.path);
  pipeline::MemoryInUse in_use{0, load.threads};
  {
    const pipeline::Classifier check(loaded.parts->metadata(), load.classifier);
    in_use.resident = pipeline::resident_bytes();
  }
  pipeline::PartitionPlan plan = pipeline::plan_partitions(*loaded.parts, load.partitions, in_use);
  if (load.gpu)
    loaded.gpu_collector = pipeline::make_gpu_hit_collector(loaded.parts->metadata().targets,
                                                            load.gpu_options.layout);
  loaded.streamed_engine = pipeline::make_partitioned_engine(
      *loaded.parts, std::move(plan), load.classifier, loaded.gpu_collector.get());
  return loaded;
}

}  // namespace

LoadedForQuery load_for_query(const DatabaseLoad& load) {
  if (load.partitions.enabled()) return load_in_parts(load);
  if (load.mpi) {
    LoadedForQuery loaded;
    loaded.mpi_engine = pipeline::make_mpi_engine(load.path, load.classifier, load.threads,
                                                  load.gpu ? &load.gpu_options.layout : nullptr);
    return loaded;
  }
  return pipeline::naming_out_of_memory(
      "loading database '" + load.path + "' whole",
      "read it in parts with --max-memory (the memory the query may use) or --partitions N",
      [&] {
        LoadedForQuery loaded;
        if (load.gpu) {
          pipeline::GpuLoadedDatabase on_gpu =
              pipeline::load_for_gpu_query(load.path, load.classifier, load.gpu_options);
          loaded.database = std::move(on_gpu.database);
          loaded.gpu_engine = std::move(on_gpu.engine);
          return loaded;
        }
        loaded.database = std::make_unique<db::Database>(db::load(load.path));
        loaded.database->index.prepare_lookup();  // part of loading for the CPU path
        loaded.cpu_engine = pipeline::make_cpu_query_engine(*loaded.database, load.classifier);
        return loaded;
      });
}

ResidentDatabases::FileIdentity ResidentDatabases::identify(const std::string& path) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0)
    throw std::runtime_error("database '" + path + "': " + std::strerror(errno));
  return {status.st_dev, status.st_ino, status.st_size,
          std::int64_t(status.st_mtim.tv_sec) * 1000000000 + status.st_mtim.tv_nsec};
}

// The same file (by identity: the path is the client's, relative to its
// folder) in the same place. The lanes' pinned start size (reserved_bases)
// is not compared: a lane grows to what a chunk needs.
bool ResidentDatabases::same_database(const DatabaseLoad& load, const FileIdentity& file) const {
  const pipeline::GpuQueryOptions& a = load.gpu_options;
  const pipeline::GpuQueryOptions& b = held_load_.gpu_options;
  return held_ && file == held_file_ && load.gpu == held_load_.gpu &&
         (!load.gpu || (a.layout == b.layout && a.chunk_bases == b.chunk_bases &&
                        a.lanes == b.lanes)) &&
         load.partitions == held_load_.partitions &&
         (!load.partitions.enabled() || load.threads == held_load_.threads);
}

HeldDatabase ResidentDatabases::get(const DatabaseLoad& load) {
  const FileIdentity file = identify(load.path);
  if (same_database(load, file)) {
    if (!(load.classifier == held_load_.classifier)) {
      if (held_->gpu_engine)
        held_->gpu_engine->use_options(load.classifier);
      else if (held_->streamed_engine)
        held_->streamed_engine = pipeline::make_partitioned_engine(
            *held_->parts, held_->streamed_engine->plan(), load.classifier,
            held_->gpu_collector.get());
      else
        held_->cpu_engine = pipeline::make_cpu_query_engine(*held_->database, load.classifier);
      held_load_.classifier = load.classifier;
    }
    return {held_, true};
  }
  // The old one goes first: a GPU may not hold both.
  held_.reset();
  held_ = std::make_shared<LoadedForQuery>(load_for_query(load));
  held_load_ = load;
  held_file_ = file;
  return {held_, false};
}

}  // namespace metawarp::cli
