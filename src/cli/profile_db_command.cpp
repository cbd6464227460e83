// `metawarp profile-db DB --read-length L [--paired]`: the database's
// read-placement profile for reads of that length, written beside it
// (pipeline/query/read_profile_build.hpp), which `query --abundance` then uses.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "cli/commands.hpp"
#include "cli/device_choice.hpp"
#include "cli/number_options.hpp"
#include "cli/query_databases.hpp"
#include "cli/thread_limit.hpp"
#include "db/database.hpp"
#include "metawarp/host/clock.hpp"
#include "metawarp/host/cores.hpp"
#include "db/metadata.hpp"
#include "db/reference_bases.hpp"
#include "pipeline/query/gpu_query.hpp"
#include "pipeline/query/part_walking_engine.hpp"
#include "pipeline/query/query.hpp"
#include "pipeline/query/read_profile_build.hpp"

namespace metawarp::cli {
namespace {

// Reads (pairs) per engine call: the query's defaults on each device.
constexpr std::size_t cpu_batch_size = 4096;
constexpr std::size_t gpu_batch_size = 65536;

struct ProfileDbCommand {
  std::string database;
  pipeline::ProfileBuildOptions options;
  std::uint32_t fragment_length = 0;  // 0: 2 L + 100
  double error_rate = 0;
  std::string device = "auto";
  pipeline::GpuQueryOptions gpu;
  bool quiet = false;
  // The database read in parts, as query reads it (--partitions, --max-memory).
  pipeline::PartitionOptions partitions;
};

// The database's index read part by part (on the CPU), the reads of each
// engine call walking every part: the same profile as the whole database's.
struct LoadedInParts {
  LoadedForQuery loaded;  // the parts and their plan
  std::unique_ptr<pipeline::QueryEngine> engine;
};

LoadedInParts load_in_parts(ProfileDbCommand& cmd, const pipeline::ClassifierOptions& classifier) {
  LoadedInParts parts;
  parts.loaded = load_for_query({cmd.database, false, classifier, {}, cmd.partitions,
                                 cmd.options.threads});
  const pipeline::PartitionPlan& plan = parts.loaded.streamed_engine->plan();
  parts.engine = pipeline::make_part_walking_engine(*parts.loaded.parts, plan, classifier,
                                                    cmd.options.threads);
  // One engine call at a time, its reads within the plan's hit memory; the
  // engine spreads each over the threads.
  const report::ProfileReads& reads = cmd.options.reads;
  cmd.options.batch_size =
      pipeline::reads_per_walk(*parts.loaded.parts, plan, reads.read_length, reads.paired);
  cmd.options.threads = 1;
  return parts;
}

void run_profile_db(ProfileDbCommand& cmd) {
  const auto start = std::chrono::steady_clock::now();
  report::ProfileReads& reads = cmd.options.reads;
  if (reads.paired)
    reads.fragment_length = cmd.fragment_length ? cmd.fragment_length : 2 * reads.read_length + 100;
  else if (cmd.fragment_length)
    throw std::invalid_argument("--fragment-length is for pairs: give --paired");
  reads.error_ppm = std::uint32_t(std::llround(cmd.error_rate * 1e6));
  const Bounded threads = bound_threads("profile-db", cmd.options.threads, available_cores());
  print_notice(threads, cmd.quiet);
  cmd.options.threads = threads.value;
  host::limit_cores(cmd.options.threads);
  // --device auto weighs the reads the profile classifies (read_length bases
  // every `stride` of each target, two mates for pairs) as a query's input.
  const db::DatabaseMetadata metadata = db::load_metadata(cmd.database);
  const std::uint64_t bases = db::reference_bases(metadata.db.targets);
  const Workload work{bases / reads.stride * reads.read_length * (reads.paired ? 2 : 1),
                      cmd.options.threads, {}};
  const bool in_parts = cmd.partitions.enabled();
  if (in_parts && cmd.device == "gpu")
    throw std::invalid_argument(
        "profile-db: --partitions and --max-memory read the database in parts on the CPU; "
        "leave out --device gpu, or build the profile on a GPU that holds the database");
  const bool gpu = !in_parts && use_gpu(cmd.device, "profile-db", cmd.quiet, false, work,
                                        query_rates);
  // The query's default classifier options: the profile describes what a
  // query with them does (query --abundance checks that it ran with them).
  const pipeline::ClassifierOptions classifier;
  const report::DatabaseIdentity identity = report::database_identity(metadata);
  std::unique_ptr<db::Database> database;
  std::unique_ptr<pipeline::QueryEngine> engine;
  LoadedInParts parts;
  if (in_parts) {
    parts = load_in_parts(cmd, classifier);
  } else if (gpu) {
    pipeline::GpuLoadedDatabase loaded = pipeline::load_for_gpu_query(cmd.database, classifier, cmd.gpu);
    database = std::move(loaded.database);
    engine = std::move(loaded.engine);
    cmd.options.batch_size = gpu_batch_size;
  } else {
    database = std::make_unique<db::Database>(db::load(cmd.database));
    engine = pipeline::make_cpu_query_engine(*database, classifier);
    cmd.options.batch_size = cpu_batch_size;
  }
  const report::ReadProfile profile = pipeline::build_read_profile(
      in_parts ? parts.loaded.metadata() : *database, identity,
      in_parts ? *parts.engine : *engine, classifier, cmd.options);
  const auto path = pipeline::save_read_profile(profile, cmd.database);
  engine.reset();  // before the database it refers to
  parts.engine.reset();
  if (!cmd.quiet) {
    std::uint64_t total = 0;
    for (const report::ProfileSource& s : profile.sources) total += s.reads;
    const std::string where =
        in_parts ? "CPU (database in " +
                       std::to_string(parts.loaded.streamed_engine->plan().parts.size()) +
                       " parts)"
                 : gpu ? "GPU" : "CPU";
    std::fprintf(stderr, "profile-db: %llu %s of %zu sources classified on the %s in %.2f s: %s\n",
                 (unsigned long long)total, reads.paired ? "pairs" : "reads",
                 profile.sources.size(), where.c_str(), host::seconds_since(start),
                 path.string().c_str());
  }
}

}  // namespace

void add_profile_db_command(CLI::App& app) {
  auto cmd = std::make_shared<ProfileDbCommand>();
  cmd->options.threads = available_cores();
  // docs/accuracy.md "Stride": as accurate as 10 on refs138, at a quarter of the work.
  cmd->options.reads.stride = 40;
  auto* sub = app.add_subcommand(
      "profile-db",
      "Write the database's read-placement profile beside it (DB.profile-L<L>[-paired]): where "
      "reads of length L from each genome are assigned; query --abundance uses it");
  sub->add_option("database", cmd->database, "Database file")->required()->check(CLI::ExistingFile);
  add_number(*sub, "--read-length", cmd->options.reads.read_length,
             "Read (or mate) length L of the samples it is for", 1u, 1u << 20)
      ->required();
  sub->add_flag("--paired", cmd->options.reads.paired,
                "Pairs: mates 1 and 2 of fragments of --fragment-length (for paired samples)");
  add_number(*sub, "--fragment-length", cmd->fragment_length,
             "Pairs: fragment length, at least 2 L (0: 2 L + 100)", 0u, 1u << 24);
  add_number(*sub, "--stride", cmd->options.reads.stride,
             "A read every this many bases of each target (1: every position)", 1u, 1u << 20);
  add_fraction(*sub, "--error-rate", cmd->error_rate,
               "Substitutions per base in the profile's reads, as the sample's sequencing errors",
               0.0, 0.5);
  add_number(*sub, "-t,--threads", cmd->options.threads,
             "Worker threads (at most 4 x the cores, 1024)", 1u);
  sub->add_option("--device", cmd->device, "Where to classify: auto (GPU if present), cpu or gpu")
      ->check(CLI::IsMember({"auto", "cpu", "gpu"}))
      ->capture_default_str();
  add_number(*sub, "--shards-per-gpu", cmd->gpu.layout.shards_per_gpu,
             "GPU: shards the index is cut into (the profile does not depend on it)", 1u,
             pipeline::max_shards_per_gpu);
  sub->add_flag("-q,--quiet", cmd->quiet, "No summary on stderr");
  // As query's (the same plan, pipeline::plan_partitions); the profile is the same.
  add_number(*sub, "--partitions", cmd->partitions.partitions,
             "CPU: read the database in this many parts, one at a time (0: as --max-memory "
             "needs)");
  add_size(*sub, "--max-memory", cmd->partitions.max_memory,
           "CPU: read the database in parts planned as query plans them for this memory (e.g. "
           "8G; the profile's reads may take more; 0: no limit)");
  sub->callback([cmd] { run_profile_db(*cmd); });
}

}  // namespace metawarp::cli
