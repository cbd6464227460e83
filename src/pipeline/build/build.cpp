// The one build driver: prepare the inputs, read the references in target-id
// order, catalog the targets, hand each to the executor, finalize, attach the
// taxa, save. The executors (build_executor.hpp) only sketch and finalize, so
// everything else about a database is decided here, once.
//
// A database larger than memory is built in partitions: ranges of feature
// values, one pass over the references each, each part finalized, written
// (db::PartWriter) and freed before the next; the database is the parts'
// concatenation, so the file is the one a single pass writes.
#include "pipeline/build/build.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <span>
#include <stdexcept>

#include "db/file_writer.hpp"
#include "db/index_concat.hpp"
#include "db/part_writer.hpp"
#include "db/reference_bases.hpp"
#include "metawarp/host/background_task.hpp"
#include "metawarp/host/clock.hpp"
#include "metawarp/index/feature_split.hpp"
#include "output/output_check.hpp"
#include "pipeline/build/build_estimate.hpp"
#include "pipeline/build/build_inputs.hpp"
#include "pipeline/build/ordered_reader.hpp"
#include "pipeline/out_of_memory.hpp"
#include "pipeline/progress.hpp"
#include "pipeline/build/target_catalog.hpp"

namespace metawarp::pipeline {
namespace {

// "partition 2/3: " when the build has several, else "".
std::string partition_label(unsigned partition, unsigned partitions) {
  if (partitions <= 1) return {};
  return "partition " + std::to_string(partition + 1) + "/" + std::to_string(partitions) + ": ";
}

// A progress line "build: [partition i/N: ]files, targets, MB, MB/s" while the inputs are read.
ProgressReporter build_progress(const BuildOptions& options, const ReadCounters& counters,
                                std::size_t files, std::string label) {
  const auto start = std::chrono::steady_clock::now();
  return ProgressReporter(options.quiet, [&counters, files, start, label] {
    const double s = host::seconds_since(start);
    const double mb = double(counters.bytes.load()) / 1e6;
    char line[160];
    std::snprintf(line, sizeof line, "%llu/%zu files, %llu targets, %.0f MB, %.1f MB/s",
                  (unsigned long long)counters.files_done.load(), files,
                  (unsigned long long)counters.records.load(), mb, s > 0 ? mb / s : 0.0);
    return "build: " + label + line;
  });
}

// How many partitions: as asked, else as many as --partition-size and the
// executor's own memory (the GPU's) need.
unsigned count_partitions(const BuildOptions& options, const BuildInputs& inputs,
                          const PartitionsNeeded& needed) {
  if (options.partitions != 0) return options.partitions;
  unsigned n = 1;
  if (options.partition_bytes != 0) {
    // 10 % above the estimate: the parts' shares are expected, not exact.
    const double bytes = double(estimate_pairs(inputs.files, options.params.sketch)) *
                         double(host_bytes_per_pair) * 1.1;
    n = std::max(n, unsigned(std::min(double(max_partitions),
                                      std::ceil(bytes / double(options.partition_bytes)))));
  }
  if (needed) n = std::max(n, needed(options, inputs));
  return n;
}

// A later pass must see the targets of the first: the references are read
// again, and a file changed in between would mix two databases.
void check_same_targets(const std::vector<db::Target>& first, const std::vector<db::Target>& again,
                        const std::string& label) {
  const auto differ = [](const db::Target& a, const db::Target& b) {
    return a.name != b.name || a.length != b.length || a.windows != b.windows ||
           a.source_file != b.source_file;
  };
  std::size_t i = 0;
  while (i < first.size() && i < again.size() && !differ(first[i], again[i])) ++i;
  if (i == first.size() && i == again.size()) return;
  const std::string where =
      i < first.size() ? "target " + std::to_string(i) + " ('" + first[i].name + "' of '" +
                             first[i].source_file + "')"
                       : "a target after the last one read before";
  throw std::runtime_error(label + "the references changed while the database was built in "
                           "partitions (each partition reads them again): " + where +
                           " differs from the first pass; build again from files that do not "
                           "change");
}

// One pass over the references for the features of `range`: every target to
// a new executor, flushed and finalized (a GPU executor's index left on its
// GPUs). The first pass fills `catalog`; later ones are checked against it.
BuiltIndex read_pass(const BuildOptions& options, const BuildInputs& inputs,
                     const MakeBuildExecutor& make, index::FeatureRange range,
                     TargetCatalog& catalog, bool first_pass, const std::string& label,
                     BuildSummary& summary) {
  const sketch::SketchParams& params = options.params.sketch;
  BuildOptions part = options;
  part.features = range;
  host::Stopwatch clock;
  const std::unique_ptr<BuildExecutor> executor = make(part, inputs);
  summary.seconds_setup += clock.lap();

  ReadCounters counters;
  TargetCatalog again;
  TargetCatalog& targets = first_pass ? catalog : again;
  {
    auto progress = build_progress(options, counters, inputs.files.size(), label);
    for_each_record_in_order(inputs.files, std::max(1u, options.threads), counters,
                             [&](io::SequenceRecord& record, std::size_t file) {
      const sketch::target_id_t target = targets.add(record, inputs.files[file], params);
      executor->add(TargetSequence{target, targets.targets().back().windows,
                                   std::move(record.sequence)});
    });
    executor->flush();
  }
  summary.seconds_read_sketch += clock.lap();
  summary.seconds_read_wait += double(counters.consumer_wait_ns.load()) * 1e-9;
  if (first_pass) summary.input_bytes = counters.bytes.load();
  else check_same_targets(catalog.targets(), again.targets(), label);

  BuiltIndex index = executor->finalize();
  summary.seconds_finalize += clock.lap();
  const std::string stages = executor->stages();
  if (!stages.empty())
    summary.executor_stages += (summary.executor_stages.empty() ? "" : "\n       ") + label + stages;
  summary.features += index.feature_count();
  summary.locations += index.location_count();
  return index;
}

// A taxonomy but not one target with a taxon (a seqid map forgotten, or one
// for other references): every read would be unclassified. Refused before
// the database is written, so that a working one at its path stays.
void check_some_taxa(const BuildOptions& options, const BuildInputs& inputs,
                     const std::vector<db::Target>& targets, const BuildSummary& summary) {
  if (options.allow_no_taxa || inputs.taxonomy.empty() || targets.empty() ||
      summary.unmapped_targets < targets.size())
    return;
  const bool maps = !options.seqid2taxid_files.empty() || !options.accession2taxid_files.empty();
  std::string sources = maps ? "no --seqid2taxid or --accession2taxid map given names them"
                             : "no --seqid2taxid or --accession2taxid map was given";
  if (!options.gtdb_taxonomy_files.empty())
    sources += ", no --gtdb-taxonomy genome accession starts their file names";
  throw std::runtime_error(
      (targets.size() == 1 ? std::string("the one target has no taxon")
                           : "none of the " + std::to_string(targets.size()) +
                                 " targets has a taxon") +
      " (" + sources + ", and their headers carry no taxid|N; the first is '" +
      targets.front().name +
      "'): the database would classify no read; give the map that names these sequences, or "
      "--allow-no-taxa to build it anyway");
}

// A part on the host: a GPU executor's downloaded now, its time part of the
// finalize (it overlaps nothing).
db::FeatureIndex part_on_host(BuiltIndex part, BuildSummary& summary) {
  host::Stopwatch clock;
  db::FeatureIndex index = std::move(part).to_host();
  summary.seconds_finalize += clock.lap();
  return index;
}

// Builds the database in its partitions, handing each part to `take_part`
// (in feature order) as it completes, with the targets (all of them, with
// their windows, from the first part on: the first pass reads them all);
// returns the database without its index.
db::Database build_parts(const BuildOptions& options, const BuildInputs& inputs,
                         const MakeBuildExecutor& make, const PartitionsNeeded& needed,
                         BuildSummary& summary, host::Stopwatch& prepare,
                         const std::function<void(BuiltIndex, std::span<const db::Target>)>&
                             take_part) {
  const unsigned partitions = count_partitions(options, inputs, needed);
  check_rereadable(inputs.files, partitions);
  const std::vector<index::FeatureRange> ranges = index::split_features(
      options.features, partitions, feature_distribution(options.params.sketch));
  summary.partitions = partitions;
  summary.features = summary.locations = 0;
  summary.seconds_prepare += prepare.lap();
  TargetCatalog catalog;
  for (unsigned p = 0; p < partitions; ++p) {
    const std::string label = partition_label(p, partitions);
    BuiltIndex part;
    try {
      part = naming_out_of_memory(
          "building the database's tables (" +
              (partitions > 1 ? "partition " + std::to_string(p + 1) + "/" +
                                    std::to_string(partitions)
                              : std::string("one partition")) +
              ", " + std::to_string(std::max(1u, options.threads)) +
              (options.threads > 1 ? " threads)" : " thread)"),
          "build in more partitions (--partitions " + std::to_string(std::max(2u, partitions * 2)) +
              ", or --partition-size BYTES), or with fewer --threads (each reads a file ahead)",
          [&] {
            return read_pass(options, inputs, make, ranges[p], catalog, p == 0, label, summary);
          });
    } catch (const PartitionTooLarge& e) {
      // More partitions make every part smaller; the factor covers parts
      // that are unbalanced (repeats crowding some features).
      throw std::runtime_error(
          "build: " + (label.empty() ? std::string("the database in one partition: ") : label) +
          e.what() +
          "; build in more partitions (--partitions " + std::to_string(std::max(2u, partitions * 2)) +
          ")" + (options.partition_bytes != 0 ? " or allow more memory per partition (--partition-size)" : ""));
    }
    if (p == 0 && catalog.targets().empty() && !options.allow_empty)
      throw std::runtime_error("the references hold no sequence (" +
                               std::to_string(inputs.files.size()) +
                               " files read): give files with FASTA/FASTQ records, or "
                               "--allow-empty to build an empty database");
    take_part(std::move(part), catalog.targets());
  }

  db::Database database;
  database.params = options.params;
  database.targets = catalog.take_with_taxa(options, inputs.taxonomy, inputs.genomes, summary);
  check_some_taxa(options, inputs, database.targets, summary);
  if (!inputs.taxonomy.empty()) {
    std::vector<taxonomy::taxid_t> ids;
    for (const auto& t : database.targets)
      if (t.taxid != taxonomy::no_taxon) ids.push_back(t.taxid);
    database.taxonomy = inputs.taxonomy.subset_with_ancestors(ids);
  }
  summary.files = inputs.files.size();
  summary.repeated_files = inputs.repeated_files;
  summary.unknown_ranks = inputs.taxonomy.unknown_rank_names();
  summary.targets = database.targets.size();
  summary.bases = db::reference_bases(database.targets);
  return database;
}

}  // namespace

db::Database build_database(const BuildOptions& options, BuildSummary* summary,
                            const MakeBuildExecutor& make, const PartitionsNeeded& needed) {
  host::Stopwatch prepare;
  BuildSummary local;
  BuildInputs inputs = find_build_inputs(options);
  load_build_taxonomy(options, inputs);
  BuildSummary& out = summary ? *summary : local;
  std::vector<db::FeatureIndex> parts;
  db::Database database = build_parts(options, inputs, make, needed, out, prepare,
                                      [&](BuiltIndex part, std::span<const db::Target>) {
                                        parts.push_back(part_on_host(std::move(part), out));
                                      });
  database.index = db::concatenate(std::move(parts));
  return database;
}

BuildSummary run_build(const BuildOptions& options, const std::filesystem::path& database,
                       const MakeBuildExecutor& make, const PartitionsNeeded& needed) {
  host::Stopwatch prepare;
  BuildInputs inputs = find_build_inputs(options);
  // The database path may be written (a new path or a regular file to
  // replace, written at offsets) and is none of the files the build reads:
  // refused before work.
  const std::vector<output::NamedPath> read = files_read_by_build(options, inputs);
  output::check_outputs({{"database", database.string()}}, read, "database", output::Writes::at_offsets);
  if (!options.run_outputs.empty()) {
    std::vector<output::NamedPath> written = options.run_outputs;
    written.push_back({"database", database.string()});
    output::check_outputs(written, read);
  }
  load_build_taxonomy(options, inputs);
  BuildSummary summary;
  // One part is saved from where the executor left it (a GPU executor's
  // index is copied down as the file is written, so the download is part of
  // the write); several go to a PartWriter as they complete (created on the
  // first, so that a build that fails before any part leaves nothing
  // behind), so one part is on the host at a time. A part downloaded from
  // a GPU is appended by a thread of its own while the next part is built
  // on the GPU; a CPU part is appended first, as the next one's sketching
  // needs the host's memory. Write time: what the driver waits for.
  std::optional<BuiltIndex> whole;
  std::optional<db::PartWriter> writer;
  host::BackgroundTask appending;  // after the writer: joined before it goes
  host::Stopwatch clock;
  db::Database built = build_parts(options, inputs, make, needed, summary, prepare,
                                   [&](BuiltIndex part, std::span<const db::Target> targets) {
    if (summary.partitions == 1) {
      whole.emplace(std::move(part));
      return;
    }
    const bool overlap = !part.on_host();
    host::Stopwatch write_clock;
    appending.wait();  // the previous part appended (its failure rethrown here)
    summary.seconds_write += write_clock.lap();
    auto index = std::make_shared<const db::FeatureIndex>(part_on_host(std::move(part), summary));
    write_clock.lap();
    if (!writer)
      writer.emplace(database, options.params.max_locations_per_feature, targets, 0, options.sync);
    if (overlap)
      appending.start([&writer, index] { writer->append(*index); });
    else
      writer->append(*index);
    summary.seconds_write += write_clock.lap();
  });
  clock.lap();
  appending.wait();  // the last part's append
  naming_out_of_memory("writing database '" + database.string() + "'",
                       "build in partitions (--partitions 2 or more): each is written as it "
                       "is done", [&] {
    if (whole) {
      db::save(built, whole->source(), database, 0, options.sync);
      whole.reset();  // a GPU's memory freed with the index
    } else {
      writer->finish(built.params, built.targets, built.taxonomy);
    }
  });
  summary.seconds_write += clock.lap();
  return summary;
}

}  // namespace metawarp::pipeline
