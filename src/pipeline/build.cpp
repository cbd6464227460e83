// The one build driver: prepare the inputs, read the references in target-id
// order, catalog the targets, hand each to the executor, finalize, attach the
// taxa, save. The executors (build_executor.hpp) only sketch and finalize, so
// everything else about a database is decided here, once.
#include "pipeline/build.hpp"

#include <chrono>
#include <cstdio>
#include <stdexcept>

#include "metawarp/host/clock.hpp"
#include "output/output_check.hpp"
#include "pipeline/build_inputs.hpp"
#include "pipeline/ordered_reader.hpp"
#include "pipeline/progress.hpp"
#include "pipeline/target_catalog.hpp"

namespace metawarp::pipeline {
namespace {

// A progress line "build: files, targets, MB, MB/s" while the inputs are read.
ProgressReporter build_progress(const BuildOptions& options, const ReadCounters& counters,
                                std::size_t files) {
  const auto start = std::chrono::steady_clock::now();
  return ProgressReporter(options.quiet, [&counters, files, start] {
    const double s = host::seconds_since(start);
    const double mb = double(counters.bytes.load()) / 1e6;
    char line[160];
    std::snprintf(line, sizeof line, "build: %llu/%zu files, %llu targets, %.0f MB, %.1f MB/s",
                  (unsigned long long)counters.files_done.load(), files,
                  (unsigned long long)counters.records.load(), mb, s > 0 ? mb / s : 0.0);
    return std::string(line);
  });
}

db::Database build_from(const BuildOptions& options, const BuildInputs& inputs,
                        const MakeBuildExecutor& make, BuildSummary& summary) {
  const sketch::SketchParams& params = options.params.sketch;
  host::Stopwatch clock;
  const std::unique_ptr<BuildExecutor> executor = make(options, inputs);
  summary.seconds_setup = clock.lap();

  ReadCounters counters;
  TargetCatalog catalog;
  {
    auto progress = build_progress(options, counters, inputs.files.size());
    for_each_record_in_order(inputs.files, std::max(1u, options.threads), counters,
                             [&](io::SequenceRecord& record, std::size_t file) {
      const sketch::target_id_t target = catalog.add(record, inputs.files[file], params);
      executor->add(TargetSequence{target, catalog.targets().back().windows,
                                   std::move(record.sequence)});
    });
    executor->flush();
  }
  summary.seconds_read_sketch = clock.lap();
  if (catalog.targets().empty() && !options.allow_empty)
    throw std::runtime_error("the references hold no sequence (" +
                             std::to_string(inputs.files.size()) +
                             " files read): give files with FASTA/FASTQ records, or "
                             "--allow-empty to build an empty database");

  db::Database database;
  database.params = options.params;
  database.index = executor->finalize();
  summary.seconds_finalize = clock.lap();
  summary.executor_stages = executor->stages();

  database.targets = catalog.take_with_taxa(options, inputs.taxonomy, summary);
  if (!inputs.taxonomy.empty()) {
    std::vector<taxonomy::taxid_t> ids;
    for (const auto& t : database.targets)
      if (t.taxid != taxonomy::no_taxon) ids.push_back(t.taxid);
    database.taxonomy = inputs.taxonomy.subset_with_ancestors(ids);
  }
  summary.files = inputs.files.size();
  summary.repeated_files = inputs.repeated_files;
  summary.unknown_ranks = inputs.taxonomy.unknown_rank_names();
  summary.input_bytes = counters.bytes.load();
  summary.targets = database.targets.size();
  summary.bases = 0;
  for (const auto& t : database.targets) summary.bases += t.length;
  summary.features = database.index.feature_count();
  summary.locations = database.index.location_count();
  return database;
}

}  // namespace

db::Database build_database(const BuildOptions& options, BuildSummary* summary,
                            const MakeBuildExecutor& make) {
  BuildSummary local;
  BuildInputs inputs = find_build_inputs(options);
  load_build_taxonomy(options, inputs);
  return build_from(options, inputs, make, summary ? *summary : local);
}

BuildSummary run_build(const BuildOptions& options, const std::filesystem::path& database,
                       const MakeBuildExecutor& make) {
  BuildInputs inputs = find_build_inputs(options);
  // The database path may be written (a new path or a regular file to
  // replace) and is none of the files the build reads: refused before work.
  output::check_outputs({{"database", database.string()}}, files_read_by_build(options, inputs),
                        "database");
  load_build_taxonomy(options, inputs);
  BuildSummary summary;
  const db::Database built = build_from(options, inputs, make, summary);
  host::Stopwatch clock;
  db::save(built, database);
  summary.seconds_write = clock.lap();
  return summary;
}

}  // namespace metawarp::pipeline
