#include "cli/run_summary.hpp"

#include <cstdint>

#include "cli/command_line.hpp"
#include "metawarp/sketch/host.hpp"

namespace metawarp::cli {
namespace {

JsonObject summary_start(const char* command) {
  JsonObject object;
  object.add("metawarp_version", program_version_number).add("command", command);
  return object;
}

JsonObject database_fields(const std::string& path, const db::DatabaseParams& params,
                           std::uint64_t targets) {
  JsonObject database;
  database.add("path", path)
      .add("targets", targets)
      .add("k", std::uint64_t(params.sketch.k))
      .add("w", std::uint64_t(params.sketch.window))
      .add("s", std::uint64_t(params.sketch.sketch_size))
      .add("sampling", sketch::sampling_name(params.sketch));
  return database;
}

double fraction(std::uint64_t part, std::uint64_t whole) {
  return whole == 0 ? 0.0 : double(part) / double(whole);
}

double rate(double amount, double seconds) { return seconds > 0 ? amount / seconds : 0.0; }

// The counts and rates of one sample, or of all: "reads" are pairs when paired.
void add_counts(JsonObject& object, const pipeline::QuerySummary& s) {
  object.add("reads", s.reads)
      .add("classified", s.classified)
      .add("unclassified", s.reads - s.classified)
      .add("classified_fraction", fraction(s.classified, s.reads), 6)
      .add("query_seconds", s.seconds, 3)
      .add("reads_per_second", rate(double(s.reads), s.seconds), 1);
}

// Where the query's threads spent their time (thread-seconds; --verbose
// prints the same), so one run tells what bounds it.
JsonObject stage_fields(const pipeline::QuerySummary::Stages& st) {
  JsonObject stages;
  stages.add("workers", std::uint64_t(st.workers))
      .add("cut_mates1_seconds", st.cut_mates1, 3)
      .add("cut_mates2_seconds", st.cut_mates2, 3)
      .add("parse_seconds", st.parse, 3)
      .add("classify_seconds", st.classify, 3)
      .add("format_seconds", st.format, 3)
      .add("worker_wait_seconds", st.worker_wait, 3)
      .add("write_seconds", st.write, 3)
      .add("writer_wait_seconds", st.writer_wait, 3)
      .add("database_wait_seconds", st.database_wait, 3);
  return stages;
}

// The GPU engine's stages, summed over its lanes (they overlap).
JsonObject gpu_stage_fields(const pipeline::GpuQueryStats& g) {
  JsonObject stages;
  stages.add("lanes", g.lanes)
      .add("chunks", g.chunks)
      .add("hits", g.hits)
      .add("upload_seconds", g.upload_seconds, 3)
      .add("pack_seconds", g.pack_seconds, 3)
      .add("copy_in_seconds", g.copy_in_seconds, 3)
      .add("sketch_lookup_seconds", g.sketch_lookup_seconds, 3)
      .add("gather_sort_seconds", g.gather_sort_seconds, 3)
      .add("candidates_seconds", g.candidates_seconds, 3)
      .add("copy_out_seconds", g.copy_out_seconds, 3)
      .add("assign_seconds", g.assign_seconds, 3);
  return stages;
}

}  // namespace

JsonObject query_summary(const QueryRun& run) {
  const auto paired = [&](const pipeline::Sample& sample) {
    return sample.reads.size() == 2 || run.interleaved;
  };
  JsonObject object = summary_start("query");
  object.add("database", database_fields(run.database_path, run.database->params,
                                         run.database->targets.size()))
      .add("device", run.gpu ? "gpu" : "cpu");
  std::vector<std::string> inputs;
  pipeline::QuerySummary total;
  std::vector<JsonObject> samples;
  for (std::size_t i = 0; i < run.samples.size(); ++i) {
    const pipeline::Sample& sample = run.samples[i];
    const pipeline::QuerySummary& result = run.results[i];
    inputs.insert(inputs.end(), sample.reads.begin(), sample.reads.end());
    total.reads += result.reads;
    total.classified += result.classified;
    total.seconds += result.seconds;
    JsonObject one;
    one.add("name", sample.name).add("inputs", sample.reads).add("paired", paired(sample));
    add_counts(one, result);
    one.add("stages", stage_fields(result.stages));
    samples.push_back(std::move(one));
  }
  object.add("inputs", inputs);
  // One sample on the command line: its fields at the top; several: the
  // totals at the top, each sample in "samples".
  const bool many = run.samples.size() != 1 || !run.samples[0].name.empty();
  if (!many) object.add("paired", paired(run.samples[0]));
  add_counts(object, total);
  if (!many) object.add("stages", stage_fields(run.results[0].stages));
  if (run.gpu_stats) object.add("gpu_stages", gpu_stage_fields(*run.gpu_stats));
  if (many) object.add("samples", samples);
  object.add("elapsed_seconds", run.elapsed_seconds, 3);
  return object;
}

JsonObject build_summary(const std::string& database_path, const pipeline::BuildOptions& options,
                         const pipeline::BuildSummary& summary, bool gpu,
                         double elapsed_seconds) {
  std::vector<std::string> gtdb;
  for (const auto& file : options.gtdb_taxonomy_files) gtdb.push_back(file.string());
  JsonObject object = summary_start("build");
  object.add("database", database_fields(database_path, options.params, summary.targets))
      .add("device", gpu ? "gpu" : "cpu")
      .add("inputs", options.references)
      .add("taxonomy", options.taxonomy_dir.string())  // "": none, or GTDB's
      .add("gtdb_taxonomy", gtdb)
      .add("seqid2taxid", options.seqid2taxid_files)
      .add("accession2taxid", options.accession2taxid_files)
      .add("files", summary.files)
      .add("targets", summary.targets)
      .add("targets_without_taxon", summary.unmapped_targets)
      .add("bases", summary.bases)
      .add("input_bytes", summary.input_bytes)
      .add("features", summary.features)
      .add("locations", summary.locations)
      .add("partitions", std::uint64_t(summary.partitions))
      .add("input_megabytes_per_second", rate(double(summary.input_bytes) / 1e6, elapsed_seconds),
           1)
      .add("elapsed_seconds", elapsed_seconds, 3);
  return object;
}

}  // namespace metawarp::cli
