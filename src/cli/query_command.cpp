// `metawarp query DB READS [READS2]` (alias `classify`), or many samples with
// `--samples SHEET` / `--sample NAME R1 [R2]`: options, validation at the
// edge, the database loaded (and for the GPU uploaded) once, then the query
// pipeline for the reads or for each sample.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <system_error>

#include "cli/command_line.hpp"
#include "cli/commands.hpp"
#include "cli/device_choice.hpp"
#include "cli/kraken2_messages.hpp"
#include "cli/kraken2_options.hpp"
#include "cli/number_options.hpp"
#include "cli/peer_access.hpp"
#include "cli/query_client.hpp"
#include "cli/query_command.hpp"
#include "cli/query_databases.hpp"
#include "cli/run_summary.hpp"
#include "cli/sample_sheet.hpp"
#include "cli/thread_limit.hpp"
#include "db/database.hpp"
#include "metawarp/host/clock.hpp"
#include "metawarp/host/cores.hpp"
#include "metawarp/host/thread_group.hpp"
#include "pipeline/build/build_estimate.hpp"
#include "pipeline/query/classifier.hpp"
#include "pipeline/gpu_available.hpp"
#include "pipeline/query/gpu_query.hpp"
#include "pipeline/query/mpi_engine.hpp"
#include "pipeline/out_of_memory.hpp"
#include "pipeline/query/partitioned_query.hpp"
#include "pipeline/process_memory.hpp"
#include "pipeline/progress.hpp"
#include "pipeline/query/query.hpp"
#include "pipeline/query/query_buffers.hpp"
#include "pipeline/query/query_output.hpp"
#include "pipeline/query/query_progress.hpp"
#include "pipeline/query/read_profile_build.hpp"
#include "pipeline/query/samples.hpp"

namespace metawarp::cli {
namespace {

// The per-read TSV of each sample when -o is not given: stdout cannot hold
// several samples.
constexpr const char* default_sample_output = "{sample}.tsv";

// Reads (pairs) per batch on the GPU when --batch-size is not given: large
// enough that kernel launches and copies amortize.
constexpr std::size_t default_gpu_batch_size = 65536;

void print_gpu_stats(const pipeline::GpuQueryStats& g) {
  const double mib = 1024.0 * 1024.0;
  std::fprintf(stderr,
               "query: GPU database %.1f MiB on the device, uploaded in %.2f s\n"
               "query: GPU %llu lanes, %llu chunks, %llu hits; summed over lanes (they overlap): "
               "pack %.2f s, copy in %.2f s, sketch+lookup %.2f s, gather+sort %.2f s, "
               "candidates %.2f s, copy out %.2f s, assign %.2f s\n",
               double(g.database_bytes) / mib, g.upload_seconds, (unsigned long long)g.lanes,
               (unsigned long long)g.chunks, (unsigned long long)g.hits, g.pack_seconds,
               g.copy_in_seconds, g.sketch_lookup_seconds, g.gather_sort_seconds,
               g.candidates_seconds, g.copy_out_seconds, g.assign_seconds);
  std::fprintf(stderr, "query: GPU database in %llu shards:", (unsigned long long)g.shards);
  for (std::size_t d = 0; d < g.devices.size(); ++d)
    std::fprintf(stderr, "%s GPU %d %.1f MiB", d ? "," : "", g.devices[d],
                 double(g.device_bytes[d]) / mib);
  std::fprintf(stderr, "\n");
}

// Where the GPU collector's time went (its part uploads are inside the part
// loads above, its lookups and downloads inside the hit lookups).
void print_gpu_part_stats(const pipeline::GpuPartStats& g, const pipeline::ShardLayout& layout) {
  std::fprintf(stderr,
               "query: GPU parts on %s: %llu uploads %.2f s (%llu of them prefetched while "
               "looking up, %.2f s; %llu prefetches skipped for GPU memory; %llu parts used "
               "again still on the GPU; the largest %.1f MiB on the "
               "device), %llu features looked up %.2f s, %llu hits downloaded %.2f s\n",
               pipeline::describe(layout).c_str(), (unsigned long long)g.parts_uploaded,
               g.upload_seconds, (unsigned long long)g.parts_prefetched, g.prefetch_seconds,
               (unsigned long long)g.prefetches_skipped, (unsigned long long)g.parts_reused,
               double(g.largest_part_bytes) / (1024.0 * 1024.0),
               (unsigned long long)g.features, g.lookup_seconds, (unsigned long long)g.hits,
               g.download_seconds);
  if (g.kept_walks != 0)
    std::fprintf(stderr,
                 "query: GPU parts: %llu hits kept on the GPU and decided there in %llu walks "
                 "(reads sent and decided %.2f s)\n",
                 (unsigned long long)g.kept_hits, (unsigned long long)g.kept_walks,
                 g.decide_seconds);
  if (g.kept_exchange_seconds != 0)
    std::fprintf(stderr, "query: GPU parts: kept lists of other processes added %.2f s\n",
                 g.kept_exchange_seconds);
}

// --verbose with --mpi: rank 0's exchange with the other ranks, next to its
// own part's hit collection and the decisions (docs/scale-out.md).
void print_mpi_stats(const pipeline::MpiStats& m) {
  if (m.read_groups > 0)
    std::fprintf(stderr,
                 "query: MPI over %d ranks, decided on rank 0's GPU: %llu groups, %llu reads "
                 "broadcast (%s), the other ranks' kept lists gathered (%s, %llu hits); %s; "
                 "packing and MPI calls (waiting for the slowest rank included) %.2f s, rank "
                 "0's reads to its GPU and looked up there %.2f s (beside them), the lists "
                 "added and the reads decided %.2f s\n",
                 pipeline::mpi_place().ranks, (unsigned long long)m.read_groups,
                 (unsigned long long)m.reads, pipeline::format_bytes(m.bytes_broadcast).c_str(),
                 pipeline::format_bytes(m.bytes_gathered).c_str(), (unsigned long long)m.hits,
                 m.looks_ahead ? "the next group sent while one is decided (two threads)"
                               : "one group at a time (MPI allows one thread)",
                 m.exchange_seconds, m.collect_seconds, m.decide_seconds);
  else
    std::fprintf(stderr,
                 "query: MPI over %d ranks: %llu batches, %llu features broadcast, %llu hits "
                 "gathered; in MPI calls (broadcast + gather, waiting for the slowest rank "
                 "included) %.2f s, rank 0's hit collection %.2f s, decisions %.2f s (summed "
                 "over threads)\n",
                 pipeline::mpi_place().ranks, (unsigned long long)m.batches,
                 (unsigned long long)m.features, (unsigned long long)m.hits, m.exchange_seconds,
                 m.collect_seconds, m.decide_seconds);
  if (!m.gpu) return;
  print_gpu_part_stats(m.gpu_stats, *m.gpu);
}

taxonomy::CanonicalRank rank_option(const std::string& option, const std::string& value) {
  const auto rank = taxonomy::parse_canonical_rank(value);
  if (!rank)
    throw std::invalid_argument(option + ": unknown rank '" + value +
                                "' (use sequence, subspecies, species, genus, family, order, "
                                "class, phylum, kingdom, domain or root)");
  return *rank;
}

// The samples of a many-sample run, in the order given: the sheet's, then
// the --sample groups.
std::vector<pipeline::Sample> gather_samples(const QueryCommand& cmd) {
  std::vector<pipeline::Sample> samples;
  if (!cmd.sample_sheet.empty()) samples = read_sample_sheet(cmd.sample_sheet);
  for (const auto& group : cmd.sample_groups) samples.push_back(sample_from_option(group));
  return samples;
}

// The classifier's options from the command's words (ranks, --confidence).
void resolve_classifier_options(QueryCommand& cmd) {
  auto& opt = cmd.options;
  opt.classifier.lowest = rank_option("--lowest", cmd.lowest);
  opt.classifier.highest = rank_option("--highest", cmd.highest);
  opt.abundance_rank = rank_option("--abundance-rank", cmd.abundance_rank);
  // Kraken2's evidence options (docs/cli-query.md): F (0..1, checked as
  // parsed) as an integer number of millionths, so every executor compares
  // the same integers.
  opt.classifier.confidence_millionths =
      std::uint32_t(std::llround(cmd.confidence * classify::confidence_scale));
}

// -t and --gpu-lanes within their bounds, with a notice where lowered.
void bound_query_threads(QueryCommand& cmd) {
  const Bounded threads = bound_threads("query", cmd.options.threads, available_cores());
  print_notice(threads, cmd.quiet);
  cmd.options.threads = threads.value;
  host::limit_cores(cmd.options.threads);  // the load, index and decoders too, not only the workers
  const Bounded lanes = bound_gpu_lanes(cmd.gpu.lanes, cmd.options.threads, cmd.gpu_lanes_given);
  print_notice(lanes, cmd.quiet);
  cmd.gpu.lanes = lanes.value;
}

// The database's read-placement profiles, for the abundance estimate
// (report/read_profile.hpp): a stale one (of another database, or an older
// build) is refused; one made with other classifier options than this
// query's does not describe its calls, and is set aside with a notice.
void load_abundance_profiles(QueryCommand& cmd) {
  auto& opt = cmd.options;
  if ((opt.abundance.empty() && opt.bracken_output.empty()) ||
      !std::filesystem::is_regular_file(cmd.database))
    return;
  const report::ProfileClassifier wanted = pipeline::profile_classifier(opt.classifier);
  for (report::ReadProfile& profile : report::load_profiles(cmd.database)) {
    if (profile.classifier == wanted) {
      cmd.profiles.push_back(std::move(profile));
    } else if (!cmd.quiet) {
      std::fprintf(stderr,
                   "query: profile '%s' was made with other classifier options than this "
                   "query's; its estimate is not used\n",
                   report::profile_path(cmd.database, profile.reads).c_str());
    }
  }
  opt.abundance_profiles = &cmd.profiles;
}

// Everything that can be refused is refused here, before the database is
// loaded and before any output is touched.
void check_before_work(QueryCommand& cmd) {
  auto& opt = cmd.options;
  resolve_classifier_options(cmd);
  if (opt.report_minimizer_data && opt.report.empty())
    throw std::invalid_argument(
        "--report-minimizer-data adds columns to the report: give --report");
  if (opt.abundance_em && opt.abundance.empty())
    throw std::invalid_argument("--abundance-em needs --abundance FILE (the table it extends)");
  if (cmd.many_samples() && !opt.reads.empty())
    throw std::invalid_argument(
        "give reads files or samples (--samples, --sample), not both");
  // A command-line mistake, as CLI11 reports a missing argument (with the
  // pointer to --help).
  if (!cmd.many_samples() && opt.reads.empty())
    throw CLI::RequiredError("reads is required: a reads file (two for pairs), or samples "
                             "with --samples SHEET or --sample NAME R1 [R2]",
                             CLI::ExitCodes::RequiredError);
  if (!cmd.output_dir.empty() && !cmd.many_samples())
    throw std::invalid_argument("--output-dir places the outputs of samples (--samples, "
                                "--sample); for one reads file give the output paths");
  if (opt.interleaved && opt.reads.size() == 2)
    throw std::invalid_argument("--interleaved takes one reads file, not two");
  if (cmd.summary_json.find(pipeline::sample_placeholder) != std::string::npos)
    throw std::invalid_argument(std::string(summary_json_option) + " '" + cmd.summary_json +
                                "': one summary covers every sample ({sample} is not replaced)");
  if (!cmd.summary_json.empty()) opt.run_outputs = {{summary_json_option, cmd.summary_json}};
  pipeline::check_classifier_options(pipeline::engine_options(opt));
  bound_query_threads(cmd);
  load_abundance_profiles(cmd);

  if (!cmd.many_samples()) {
    check_kraken2_options(cmd.kraken2, opt, {});
    pipeline::check_output_templates(opt, false);
    pipeline::check_query_paths(opt, cmd.database);
    return;
  }
  if (!cmd.output_given) opt.output = default_sample_output;
  cmd.samples = gather_samples(cmd);
  check_kraken2_options(cmd.kraken2, opt, cmd.samples);
  pipeline::check_sample_paths(opt, cmd.samples, cmd.output_dir, cmd.database);
}

std::uint64_t file_size_or_zero(const std::string& path) {
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  return error ? 0 : size;
}

// "query: 1000 read pairs, 900 classified (90.00%), 100 unclassified" with
// `label` ("query", "query: sample 2/5 gut_A").
void print_counts(const std::string& label, const pipeline::QuerySummary& summary, bool paired) {
  const double percent =
      summary.reads == 0 ? 0.0 : 100.0 * double(summary.classified) / double(summary.reads);
  std::fprintf(stderr,
               "%s: %llu %s, %llu classified (%.2f%%), %llu unclassified; %.2f s, %.0f %s/s\n",
               label.c_str(), (unsigned long long)summary.reads,
               paired ? "read pairs" : "reads", (unsigned long long)summary.classified, percent,
               (unsigned long long)(summary.reads - summary.classified), summary.seconds,
               summary.seconds > 0 ? double(summary.reads) / summary.seconds : 0.0,
               paired ? "pairs" : "reads");
}

// The developer's view (--verbose): where the threads spent their time.
void print_stages(const pipeline::QuerySummary::Stages& st) {
  std::fprintf(stderr,
               "query: stages in thread-seconds: cutting input %.2f s (mates 1) + %.2f s (mates "
               "2), one thread each; %u workers: parse %.2f s, classify %.2f s, format %.2f s, "
               "idle waiting for input %.2f s; writer: write %.2f s, idle %.2f s\n",
               st.cut_mates1, st.cut_mates2, st.workers, st.parse, st.classify, st.format,
               st.worker_wait, st.write, st.writer_wait);
  if (st.batches_cut_ahead > 0)
    std::fprintf(stderr,
                 "query: reads cut while the database loaded: %llu batches; the database was "
                 "ready %.2f s after the query started (its time counts from then)\n",
                 (unsigned long long)st.batches_cut_ahead, st.database_wait);
}

// A summary line per sample as it completes (the stages with --verbose).
class SampleSummaries final : public pipeline::SampleObserver {
 public:
  explicit SampleSummaries(const QueryCommand& cmd) : cmd_(cmd) {}
  void finished(const pipeline::Sample& sample, std::size_t index, std::size_t count,
                const pipeline::QuerySummary& summary) override {
    if (cmd_.quiet) return;
    const bool paired = sample.reads.size() == 2 || cmd_.options.interleaved;
    print_counts("query: sample " + std::to_string(index + 1) + "/" + std::to_string(count) +
                     " " + sample.name,
                 summary, paired);
    if (cmd_.verbose) print_stages(summary.stages);
  }

 private:
  const QueryCommand& cmd_;
};

// The samples of this run for its summary: the reads given, as one unnamed
// sample, or the samples.
std::vector<pipeline::Sample> summary_samples(const QueryCommand& cmd) {
  if (cmd.many_samples()) return cmd.samples;
  return {pipeline::Sample{"", cmd.options.reads, ""}};
}

// --summary-json, written once the query has succeeded (`file` was opened
// before it started, so a failed query leaves none).
void finish_summary(pipeline::OutputFile& file, const QueryCommand& cmd,
                    const LoadedForQuery& loaded, bool gpu,
                    std::vector<pipeline::QuerySummary> results) {
  if (!file.enabled()) return;
  QueryRun run{cmd.database, &loaded.metadata(), gpu, cmd.options.interleaved,
               summary_samples(cmd), std::move(results), host::seconds_since(cmd.start), {}};
  if (loaded.gpu_engine) run.gpu_stats = loaded.gpu_engine->stats();
  file.write(query_summary(run).text());
  file.close();
}

// What --device auto weighs for this query: its reads (every sample's) on
// its threads; GPU options (--gpus) ask for the GPU wherever one is usable.
Workload query_workload(const QueryCommand& cmd) {
  std::vector<std::string> files = cmd.options.reads;
  for (const pipeline::Sample& sample : cmd.samples)
    files.insert(files.end(), sample.reads.begin(), sample.reads.end());
  if (!cmd.gpu_list.empty()) return Workload{0, cmd.options.threads, "--gpus given"};
  return Workload{pipeline::estimate_input_bytes(files), cmd.options.threads, {}};
}

// Whether the query runs on the GPU (use_gpu: --device, and for auto its
// workload).
bool query_on_gpu(const QueryCommand& cmd, bool quiet, bool verbose) {
  return use_gpu(cmd.device, "query", quiet, verbose,
                 cmd.device == "auto" ? query_workload(cmd) : Workload{}, query_rates);
}

// --verbose with parts: what the streamed engine did.
void print_partition_stats(const LoadedForQuery& loaded, const QueryCommand& cmd) {
  const pipeline::PartitionStats stats = loaded.streamed_engine->stats();
  std::fprintf(stderr,
               "query: %zu part(s) (the largest %s), %llu super-batch(es) in %llu walks "
               "(sweeps) over them, %llu part loads (%llu read from the file) "
               "%.2f s, hit lookups %.2f s, decisions %.2f s, at most %s of hits, %s in a "
               "super-batch (its budget %s); %s resident at most\n",
               stats.parts, pipeline::format_bytes(stats.largest_part_bytes).c_str(),
               (unsigned long long)stats.super_batches, (unsigned long long)stats.walks,
               (unsigned long long)stats.part_loads, (unsigned long long)stats.part_reads,
               stats.load_seconds, stats.collect_seconds,
               stats.decide_seconds, pipeline::format_bytes(stats.largest_hits_bytes).c_str(),
               pipeline::format_bytes(stats.largest_super_batch_bytes).c_str(),
               pipeline::format_bytes(loaded.streamed_engine->plan().hit_memory).c_str(),
               pipeline::format_bytes(pipeline::peak_resident_bytes()).c_str());
  const std::uint64_t keep = loaded.streamed_engine->plan().keep_bytes;
  if (stats.kept_parts == stats.parts)
    std::fprintf(stderr, "query: every part read from the file once, kept in host memory (%s)\n",
                 pipeline::format_bytes(stats.kept_bytes).c_str());
  else
    std::fprintf(stderr,
                 "query: %zu of %zu parts kept in host memory (%s; the budget %s%s), the "
                 "others read from the file at each use\n",
                 stats.kept_parts, stats.parts, pipeline::format_bytes(stats.kept_bytes).c_str(),
                 pipeline::format_bytes(keep).c_str(),
                 cmd.partitions.max_memory != 0 ? ": none with --max-memory" : "");
  if (loaded.gpu_collector) print_gpu_part_stats(loaded.gpu_collector->stats(), cmd.gpu.layout);
}

// The loading line's end for a database read in parts: its plan.
std::string describe_parts(const pipeline::PartitionPlan& plan) {
  std::uint64_t largest = 0;
  for (const db::IndexPart& part : plan.parts)
    largest = std::max(largest, db::index_bytes(part.features(), part.locations()));
  return std::to_string(plan.parts.size()) +
         (plan.parts.size() == 1 ? " part, " : " parts, the largest ") +
         pipeline::format_bytes(largest) + " in memory";
}

// A notice, after the loading line, where --partitions asked for more parts
// than are of use.
void notice_fewer_parts(const pipeline::PartitionPlan& plan, const QueryCommand& cmd) {
  if (plan.parts.size() >= cmd.partitions.partitions || cmd.quiet) return;
  std::fprintf(stderr,
               "query: --partitions %zu: database %s gives at most %zu useful parts (of %s "
               "and one feature at least); reading it in %zu\n",
               cmd.partitions.partitions, cmd.database.c_str(), plan.parts.size(),
               pipeline::format_bytes(pipeline::min_part_bytes).c_str(), plan.parts.size());
}

// What a whole-database query's reads hold, and what lowers it, for an
// out-of-memory error.
std::string batches_held(const pipeline::QueryOptions& o) {
  return "batches of up to " + std::to_string(o.batch_size) + " reads on " +
         std::to_string(o.threads) + " threads";
}
constexpr const char* lower_batches = "lower --batch-size or --threads";

// What the query loads: the database file and what its engine depends on.
DatabaseLoad database_load(const QueryCommand& cmd, bool gpu) {
  return {cmd.database, gpu, pipeline::engine_options(cmd.options), cmd.gpu, cmd.partitions,
          cmd.options.threads, cmd.mpi};
}

// A Kraken2 user's --output names Kraken2's per-read file; in `query` it is
// metawarp's TSV, which the Kraken2 options given suggest was not meant.
void warn_output_is_metawarps(const CLI::App& sub, const QueryCommand& cmd) {
  const std::vector<std::string> kraken2 = given_kraken2_options(sub);
  if (!cmd.output_given || cmd.options.output.empty() || kraken2.empty() || cmd.quiet) return;
  std::fprintf(stderr,
               "query: warning: --output writes metawarp's per-read TSV, not Kraken2's per-read "
               "format (given with Kraken2's %s): Kraken2's is --kraken-output FILE, or run "
               "`metawarp kraken2`, whose --output is Kraken2's\n",
               kraken2.front().c_str());
}

}  // namespace

CLI::Validator existing_file_or_stdin() {
  return CLI::Validator(
      [](const std::string& path) {
        return path == "-" ? std::string() : CLI::ExistingFile(path);
      },
      "FILE or -");
}

namespace {

// A rank other than 0 of `metawarp query --mpi`: its part, loaded and
// agreed on, then rank 0's batches until rank 0 is done. A load that failed
// anywhere is rank 0's to report: this rank ends with status 1, silently.
// --device auto is decided on each rank as on rank 0 (silently: rank 0 says
// it); a rank whose host has no usable GPU then collects on its CPU, the same
// hits.
void serve_mpi_rank(const QueryCommand& cmd) {
  const bool gpu = query_on_gpu(cmd, true, false);
  try {
    pipeline::make_mpi_engine(cmd.database, pipeline::engine_options(cmd.options),
                              cmd.options.threads, gpu ? &cmd.gpu.layout : nullptr)
        ->serve(cmd.verbose);
  } catch (const pipeline::MpiFailedElsewhere&) {
    throw ExitStatus{1};
  }
}

}  // namespace

void run_query(QueryCommand& cmd, QueryDatabases& databases) {
  // --mpi: the ranks other than 0 hold their parts and answer rank 0's
  // batches; rank 0 runs the query below, with its part and theirs.
  if (cmd.mpi && pipeline::mpi_place().rank != 0) return serve_mpi_rank(cmd);
  check_before_work(cmd);
  pipeline::OutputFile summary_file(cmd.summary_json);
  auto& opt = cmd.options;
  const bool gpu = query_on_gpu(cmd, cmd.quiet, cmd.verbose);
  // A database read in parts (--partitions, --max-memory) goes to the
  // streamed engine; its batch size stays the CPU's on the GPU too: the GPU
  // collector looks up a whole super-batch at once, and the batches are what
  // the threads parse and decide in parallel (65536-pair batches left half
  // of 16 cores idle).
  const bool parts = cmd.partitions.enabled();
  // --mpi keeps the CPU's batches on GPUs too: a batch's hits from every rank
  // must fit MPI's int counts (MpiEngine::exchange).
  if (gpu && !parts && !cmd.mpi && !cmd.batch_size_given) opt.batch_size = default_gpu_batch_size;
  // The lanes' pinned bases: the bases of a batch of the (first) sample,
  // where its records tell before reading (plain FASTQ). A FASTQ record's
  // text is a little over twice its bases, so the bytes of mates 1's block
  // hold both mates' bases; a larger chunk grows its lane's buffer then.
  const pipeline::QueryOptions& first_sample =
      cmd.many_samples() ? pipeline::sample_query_options(opt, cmd.samples[0], cmd.output_dir)
                         : opt;
  cmd.gpu.reserved_bases = pipeline::expected_batch_bytes(first_sample);
  // The batches' and workers' memory, made and touched while the database
  // loads, and kept for every sample (pipeline/query/query_buffers.hpp); not for
  // the streamed engine, whose super-batches are sized by its budget.
  pipeline::QueryBuffers& buffers = databases.buffers();
  host::ThreadGroup warm_up;
  if (!parts)
    warm_up.spawn([&] {
      pipeline::naming_out_of_memory("reserving the reads' batches (" + batches_held(opt) + ")",
                                     lower_batches, [&] { buffers.prepare(first_sample); });
    });
  // Loaded here, once for every sample (classifier options out of range
  // were refused by check_before_work, before any output is touched).
  pipeline::ProgressStep loading(
      cmd.quiet, parts ? "query: checking database " + cmd.database + " to read it in parts"
                       : "query: loading database " + cmd.database +
                             (cmd.mpi ? " over " + std::to_string(pipeline::mpi_place().ranks) +
                                            " MPI ranks, a part each" +
                                            (gpu ? " on a GPU of its host" : "")
                              : gpu   ? " onto " + pipeline::describe(cmd.gpu.layout)
                                      : std::string()));
  HeldDatabase held;
  double load_seconds = 0;
  auto load = [&] {
    held = databases.get(database_load(cmd, gpu));
    if (cmd.kraken2_messages) std::fputs(kraken2_loaded_line, stderr);
    load_seconds = loading.seconds();
    if (held.loaded_before) return loading.done("held by the server");
    if (cmd.mpi) return loading.done(pipeline::format_seconds(load_seconds));
    if (parts) {
      const pipeline::PartitionPlan& plan = held.loaded->streamed_engine->plan();
      loading.done(describe_parts(plan) + ", " + pipeline::format_seconds(load_seconds));
      return notice_fewer_parts(plan, cmd);
    }
    loading.done(pipeline::format_bytes(file_size_or_zero(cmd.database)) +
                 (gpu ? ", " + pipeline::format_bytes(
                                   held.loaded->gpu_engine->stats().database_bytes) +
                            " on the GPU"
                      : std::string()) +
                 ", " + pipeline::format_seconds(load_seconds));
  };
  const pipeline::ProgressStyle progress = pipeline::progress_style(cmd.quiet);
  std::vector<pipeline::QuerySummary> results;

  if (cmd.many_samples()) {
    load();
    warm_up.join();
    SampleSummaries summaries(cmd);
    results = pipeline::naming_out_of_memory(
        "classifying the reads (" + batches_held(opt) + ")", lower_batches, [&] {
          return pipeline::run_samples(held.loaded->metadata(), opt, cmd.samples,
                                       cmd.output_dir, held.loaded->engine(), progress,
                                       &summaries, &buffers);
        });
    if (!cmd.quiet) {
      double seconds = 0;
      for (const auto& r : results) seconds += r.seconds;
      std::fprintf(stderr,
                   "query: %zu samples done; database load %.2f s (once), classification "
                   "%.2f s\n",
                   results.size(), load_seconds, seconds);
    }
  } else {
    // One sample: its reads are read, decompressed and cut while the
    // database loads on a thread of its own (pipeline/query/query.hpp,
    // PendingDatabase; the streamed engine sizes the batches, so they wait
    // for it, as with --mpi on GPUs, whose engine is a streamed one where
    // every rank can keep its lists on its GPU: MpiQueryEngine); the
    // progress line starts once the load line is done.
    std::optional<pipeline::QueryProgress> line;
    {
      host::ThreadGroup loader;
      loader.spawn(load);
      warm_up.join();  // the buffers are the query's from here on
      const pipeline::PendingDatabase pending{[&] {
                                                loader.join();
                                                line.emplace(progress, "query", opt);
                                                return pipeline::LoadedDatabase{
                                                    &held.loaded->metadata(),
                                                    held.loaded->engine(), &line->counters()};
                                              },
                                              parts || (cmd.mpi && gpu)};
      results.push_back(pipeline::naming_out_of_memory(
          "classifying the reads (" + batches_held(opt) + ")", lower_batches,
          [&] { return pipeline::run_query(pending, opt, &buffers); }));
      line.reset();
    }
    if (cmd.kraken2_messages) std::fputs(kraken2_summary(results[0]).c_str(), stderr);
    if (!cmd.quiet) {
      print_counts("query", results[0], opt.reads.size() == 2 || opt.interleaved);
      if (cmd.verbose) print_stages(results[0].stages);
    }
  }
  if (held.loaded && held.loaded->streamed_engine && cmd.verbose)
    print_partition_stats(*held.loaded, cmd);
  if (held.loaded && held.loaded->gpu_engine && cmd.verbose)
    print_gpu_stats(held.loaded->gpu_engine->stats());
  if (held.loaded && held.loaded->mpi_engine && cmd.verbose)
    print_mpi_stats(held.loaded->mpi_engine->stats());
  finish_summary(summary_file, cmd, *held.loaded, gpu, std::move(results));
}

void add_partition_options(CLI::App& sub, QueryCommand& cmd) {
  add_number(sub, "--partitions", cmd.partitions.partitions,
             "Read the database in this many parts, one at a time (0: as --max-memory needs)");
  add_size(sub, "--max-memory", cmd.partitions.max_memory,
           "Run the query in at most this much memory (e.g. 8G; resident host memory; a part "
           "of it on the GPU with the GPU), reading the database in parts (0: no limit)");
  add_size(sub, "--hit-memory", cmd.partitions.hit_memory,
           "With parts: about this much memory for the reads in flight and their hits (0: what "
           "the part leaves of --max-memory, else an eighth of the host's memory, at most 4G)");
}

void add_device_options(CLI::App& sub, QueryCommand& cmd) {
  add_number(sub, "-t,--threads", cmd.options.threads,
             "Worker threads (at most 4 x the cores, 1024)", 1u);
  sub.add_option("--device", cmd.device, "Where to classify: auto (the GPU if present and the reads large enough), cpu or gpu")
      ->check(CLI::IsMember({"auto", "cpu", "gpu"}))
      ->capture_default_str();
  // The GPUs (--gpu: one; --gpus: several) and shards the index is cut into.
  auto* one_gpu = add_number(sub, "--gpu", cmd.gpu_device, "GPU: CUDA device number", 0);
  sub.add_option("--gpus", cmd.gpu_list,
                  "GPUs the database is sharded over: a count N (devices 0..N-1) or a list "
                  "(0,2,3); they must reach one another's memory (peer access)")
      ->excludes(one_gpu);
  add_number(sub, "--shards-per-gpu", cmd.gpu.layout.shards_per_gpu,
             "Shards (feature ranges) per GPU; results do not depend on it", 1u,
             pipeline::max_shards_per_gpu);
  add_number(sub, "--gpu-lanes", cmd.gpu.lanes,
             "GPU: streams the worker threads share (each with its own buffers; at most "
             "the threads, 64)",
             1u);
}

void read_device_options(const CLI::App& sub, QueryCommand& cmd) {
  cmd.gpu_lanes_given = sub.count("--gpu-lanes") > 0;
  cmd.gpu.layout.devices = sub.count("--gpus") > 0 ? pipeline::parse_gpu_list(cmd.gpu_list)
                                                   : std::vector<int>{cmd.gpu_device};
}

DatabaseLoad default_query_load(QueryCommand& cmd, const std::string& command) {
  resolve_classifier_options(cmd);
  bound_query_threads(cmd);
  // A server pays CUDA's start-up once for all the queries it answers.
  const Workload served{0, cmd.options.threads, "a server pays CUDA's start-up once"};
  return database_load(cmd, use_gpu(cmd.device, command.c_str(), cmd.quiet, cmd.verbose, served,
                                    query_rates));
}

void add_query_command(CLI::App& app, const CommandContext& context) {
  auto cmd = std::make_shared<QueryCommand>();
  auto& opt = cmd->options;
  auto& cls = opt.classifier;
  opt.threads = available_cores();
  opt.cancelled = context.cancelled;
  CLI::App* sub = app.add_subcommand("query", "Classify reads against a database");
  sub->alias("classify");
  sub->add_option("database", cmd->database, "Database file written by `metawarp build`")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("reads", opt.reads,
                  "Reads (FASTA/FASTQ, .gz ok, '-' for stdin); two files for paired mates")
      ->expected(1, 2)
      ->check(existing_file_or_stdin());
  sub->add_option("--samples", cmd->sample_sheet,
                  "Sample sheet: lines of name<TAB>R1[<TAB>R2] (docs/cli-query.md)")
      ->check(CLI::ExistingFile);
  sub->add_option("--sample", cmd->sample_groups,
                  "A sample: NAME R1 [R2] (repeatable; with or without --samples)")
      ->expected(2, 3);
  sub->add_option("--output-dir", cmd->output_dir,
                  "Samples: folder of relative output paths (it must exist)")
      ->check(CLI::ExistingDirectory);
  sub->add_flag("--interleaved", opt.interleaved, "The one reads file holds pairs, mate by mate");
  sub->add_option("-o,--output", opt.output,
                  "Per-read TSV ('-': stdout; '' to skip; with samples: {sample}.tsv)")
      ->capture_default_str();
  sub->add_option("--kraken-output", opt.kraken_output, "Kraken2-style per-read output file");
  sub->add_option("--report", opt.report, "Kraken2-style report file");
  sub->add_option("--abundance", opt.abundance, "Abundance table file (reads per taxon)");
  sub->add_option("--bracken-output", opt.bracken_output,
                  "The abundance estimate at --abundance-rank in Bracken's columns (from the "
                  "database's profile for the sample's read length, else the EM)");
  sub->add_option("--abundance-rank", cmd->abundance_rank, "Rank of the abundance table")
      ->capture_default_str();
  // Abundance estimation (docs/accuracy.md, "Abundances").
  sub->add_flag("--abundance-em", opt.abundance_em,
                "Abundance table: add reads called above the rank, split over their candidates' "
                "taxa by an EM, and cell abundance (per genome length)");
  sub->add_flag("--top-hits", opt.top_hits, "Add the top candidates (target:hits) per read");
  // Kraken2's evidence options (docs/cli-query.md, docs/accuracy.md).
  add_fraction(*sub, "--confidence", cmd->confidence,
               "Lift a read to the lowest taxon whose clade holds at least this fraction of "
               "its features, unclassified if none does (0: off)",
               0.0, 1.0);
  sub->add_flag("--report-minimizer-data", opt.report_minimizer_data,
                "Report: also the distinct features seen per taxon and those the database holds");
  add_number(*sub, "--max-candidates", cls.max_candidates, "Best targets considered per read",
             1u, classify::max_candidates_limit);
  add_number(*sub, "--hit-min", cls.hit_min,
             "Hits the best candidate needs (0: by the database: s/3 for single reads and s/2 "
             "for pairs with window sampling, 2 with content-defined sampling)");
  add_number(*sub, "--match-min", cls.match_min,
             "Read bases the best candidate's k-mers must cover, content-defined sampling only "
             "(0: the fewest a chance match reaches once in a million reads, by the read's and "
             "the database's lengths)");
  add_number(*sub, "--hit-diff", cls.hit_diff,
             "LCA over candidates with at least best - hit-diff hits (default: 3 with window "
             "sampling, 0 with content-defined sampling)")
      ->default_str("auto");
  sub->add_option("--lowest", cmd->lowest, "Lift assignments below this rank to it")
      ->capture_default_str();
  sub->add_option("--highest", cmd->highest, "Leave reads above this rank unclassified")
      ->capture_default_str();
  add_number(*sub, "--insert-size", cls.insert_size,
             "Largest fragment a pair spans (0: the sum of the mates' lengths)");
  add_number(*sub, "--batch-size", opt.batch_size,
             "Reads (pairs) per batch (GPU default: " + std::to_string(default_gpu_batch_size) +
                 ")",
             1);
  add_device_options(*sub, *cmd);
  add_partition_options(*sub, *cmd);
  std::string mpi_help =
      "Run over the ranks of an MPI job (mpirun -np N metawarp query ... --mpi), the database "
      "cut into a part per rank, on its CPU or (--device gpu) on a GPU of its host; rank 0 reads "
      "the reads and writes the outputs (docs/scale-out.md)";
  if (!pipeline::mpi_compiled_in()) mpi_help += "; this metawarp was built without MPI";
  sub->add_flag("--mpi", cmd->mpi, mpi_help)
      ->excludes("--partitions")
      ->excludes("--max-memory")
      ->excludes("--hit-memory");
  // Kraken2's spellings: --paired, --use-names, --classified-out, ...
  add_kraken2_options(*sub, opt, cmd->kraken2);
  // Kraken2's --db is the whole Kraken2 command line's: said so, not taken
  // for a reads file or refused as unknown.
  add_refused_option(*sub, "--db", true, "",
                     "--db: metawarp query takes the database as its first argument (metawarp "
                     "query DB READS...); for Kraken2's command line, --db and Kraken2's "
                     "--output included, run `metawarp kraken2` (or metawarp called as kraken2)");
  sub->add_option("--summary-json", cmd->summary_json,
                  "Write a summary of the run as JSON (inputs, counts, rates, database, times) "
                  "to this file ('-': stdout)");
  sub->add_option("--server", cmd->server,
                  "Run on the `metawarp serve` at this socket, which holds the database "
                  "(docs/cli-query.md, \"A resident server\")");
  auto* quiet = sub->add_flag("-q,--quiet", cmd->quiet, "No progress or summary on stderr");
  sub->add_flag("-v,--verbose", cmd->verbose,
                "Also the time per stage (thread-seconds) and the GPU statistics")
      ->excludes(quiet);
  sub->callback([cmd, sub, context] {
    // --mpi first: metawarp hands the command line to metawarp-mpi before
    // anything is read or written (pipeline::mpi_handoff).
    if (cmd->mpi && context.request)
      throw std::invalid_argument("a server does not run --mpi queries (mpirun starts its ranks)");
    if (cmd->mpi) pipeline::mpi_handoff();
    cmd->start = std::chrono::steady_clock::now();
    cmd->batch_size_given = sub->count("--batch-size") > 0;
    read_device_options(*sub, *cmd);
    cmd->output_given = sub->count("--output") > 0;
    warn_output_is_metawarps(*sub, *cmd);
    if (cmd->mpi && !cmd->server.empty())
      throw std::invalid_argument("--mpi runs in the processes mpirun starts: not with --server");
    if (!cmd->server.empty()) {
      if (context.request) throw std::invalid_argument("a server does not pass a query on");
      throw ExitStatus{run_on_server(cmd->server, context.arguments)};
    }
    // A server reads the database with its own rights, and may hold it
    // loaded: its client must be one who may read the file now.
    if (context.client) require_readable_by(*context.client, cmd->database, "database");
    if (context.databases) return run_query(*cmd, *context.databases);
    OwnDatabases own;
    run_query(*cmd, own);
  });
}

}  // namespace metawarp::cli
