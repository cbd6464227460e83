// `metawarp query DB READS [READS2]` (alias `classify`): options, validation
// at the edge, the database loaded once, then the query pipeline.
#include <chrono>
#include <cstdio>
#include <memory>
#include <stdexcept>

#include "cli/commands.hpp"
#include "cli/device_choice.hpp"
#include "cli/thread_limit.hpp"
#include "db/database.hpp"
#include "metawarp/host/clock.hpp"
#include "pipeline/classifier.hpp"
#include "pipeline/gpu_query.hpp"
#include "pipeline/query.hpp"

namespace metawarp::cli {
namespace {

struct QueryCommand {
  std::string database;
  pipeline::QueryOptions options;
  std::string lowest = "sequence";
  std::string highest = "root";
  std::string abundance_rank = "species";
  bool quiet = false;
  std::string device = "auto";
  pipeline::GpuQueryOptions gpu;
  bool batch_size_given = false;
  bool gpu_lanes_given = false;
};

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
}

// Reads may come from stdin ("-"); anything else must be an existing file.
CLI::Validator existing_file_or_stdin() {
  return CLI::Validator(
      [](const std::string& path) {
        return path == "-" ? std::string() : CLI::ExistingFile(path);
      },
      "FILE or -");
}

taxonomy::CanonicalRank rank_option(const std::string& option, const std::string& value) {
  const auto rank = taxonomy::parse_canonical_rank(value);
  if (!rank)
    throw std::invalid_argument(option + ": unknown rank '" + value +
                                "' (use sequence, subspecies, species, genus, family, order, "
                                "class, phylum, kingdom, domain or root)");
  return *rank;
}

// Everything that can be refused is refused here, before the database is
// loaded and before any output is touched.
void check_before_work(QueryCommand& cmd) {
  auto& opt = cmd.options;
  opt.classifier.lowest = rank_option("--lowest", cmd.lowest);
  opt.classifier.highest = rank_option("--highest", cmd.highest);
  opt.abundance_rank = rank_option("--abundance-rank", cmd.abundance_rank);
  if (opt.batch_size == 0) throw std::invalid_argument("--batch-size must be at least 1");
  if (opt.interleaved && opt.reads.size() == 2)
    throw std::invalid_argument("--interleaved takes one reads file, not two");
  const Bounded threads = bound_threads("query", opt.threads, available_cores());
  print_notice(threads, cmd.quiet);
  opt.threads = threads.value;
  const Bounded lanes = bound_gpu_lanes(cmd.gpu.lanes, opt.threads, cmd.gpu_lanes_given);
  print_notice(lanes, cmd.quiet);
  cmd.gpu.lanes = lanes.value;

  pipeline::check_query_paths(opt, cmd.database);
}

void run_query(QueryCommand& cmd) {
  check_before_work(cmd);
  auto& opt = cmd.options;
  const bool gpu = use_gpu(cmd.device, "query", cmd.quiet);
  const auto start = std::chrono::steady_clock::now();
  const db::Database database = db::load(cmd.database);
  if (!gpu) database.index.prepare_lookup();  // part of loading for the CPU path
  const double load_seconds = host::seconds_since(start);
  // Made here, not by run_query, so that classifier options out of range are
  // refused before any output is touched.
  std::unique_ptr<pipeline::QueryEngine> engine;
  std::unique_ptr<pipeline::GpuQueryEngine> gpu_engine;
  if (gpu) {
    if (!cmd.batch_size_given) opt.batch_size = default_gpu_batch_size;
    gpu_engine = pipeline::make_gpu_query_engine(database, opt.classifier, cmd.gpu);
  } else {
    engine = pipeline::make_cpu_query_engine(database, opt.classifier);
  }
  const pipeline::QuerySummary summary =
      pipeline::run_query(database, opt, gpu ? gpu_engine.get() : engine.get());
  if (cmd.quiet) return;
  const double percent =
      summary.reads == 0 ? 0.0 : 100.0 * double(summary.classified) / double(summary.reads);
  const bool paired = opt.reads.size() == 2 || opt.interleaved;
  std::fprintf(stderr,
               "query: %llu %s, %llu classified (%.2f%%), %llu unclassified\n"
               "query: database load %.2f s, classification %.2f s, %.0f %s/s\n",
               (unsigned long long)summary.reads, paired ? "read pairs" : "reads",
               (unsigned long long)summary.classified, percent,
               (unsigned long long)(summary.reads - summary.classified), load_seconds,
               summary.seconds,
               summary.seconds > 0 ? double(summary.reads) / summary.seconds : 0.0,
               paired ? "pairs" : "reads");
  const auto& st = summary.stages;
  std::fprintf(stderr,
               "query: stages in thread-seconds: cutting input %.2f s (mates 1) + %.2f s (mates "
               "2), one thread each; %u workers: parse %.2f s, classify %.2f s, format %.2f s, "
               "idle waiting for input %.2f s; writer: write %.2f s, idle %.2f s\n",
               st.cut_mates1, st.cut_mates2, st.workers, st.parse, st.classify, st.format,
               st.worker_wait, st.write, st.writer_wait);
  if (gpu_engine) print_gpu_stats(gpu_engine->stats());
}

}  // namespace

void add_query_command(CLI::App& app) {
  auto cmd = std::make_shared<QueryCommand>();
  auto& opt = cmd->options;
  auto& cls = opt.classifier;
  opt.threads = available_cores();
  CLI::App* sub = app.add_subcommand("query", "Classify reads against a database");
  sub->alias("classify");
  sub->add_option("database", cmd->database, "Database file written by `metawarp build`")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("reads", opt.reads,
                  "Reads (FASTA/FASTQ, .gz ok, '-' for stdin); two files for paired mates")
      ->required()
      ->expected(1, 2)
      ->check(existing_file_or_stdin());
  sub->add_flag("--interleaved", opt.interleaved, "The one reads file holds pairs, mate by mate");
  sub->add_option("-o,--output", opt.output,
                  "Per-read TSV ('-': stdout; '' to skip)")
      ->capture_default_str();
  sub->add_option("--kraken-output", opt.kraken_output, "Kraken2-style per-read output file");
  sub->add_option("--report", opt.report, "Kraken2-style report file");
  sub->add_option("--abundance", opt.abundance, "Abundance table file (reads per taxon)");
  sub->add_option("--abundance-rank", cmd->abundance_rank, "Rank of the abundance table")
      ->capture_default_str();
  sub->add_flag("--top-hits", opt.top_hits, "Add the top candidates (target:hits) per read");
  sub->add_option("--max-candidates", cls.max_candidates,
                  "Best targets considered per read (1..16)")
      ->capture_default_str();
  sub->add_option("--hit-min", cls.hit_min,
                  "Hits the best candidate needs (0: s/3 for single reads, s/2 for pairs)")
      ->capture_default_str();
  sub->add_option("--hit-diff", cls.hit_diff,
                  "LCA over candidates with at least best - hit-diff hits")
      ->capture_default_str();
  sub->add_option("--lowest", cmd->lowest, "Lift assignments below this rank to it")
      ->capture_default_str();
  sub->add_option("--highest", cmd->highest, "Leave reads above this rank unclassified")
      ->capture_default_str();
  sub->add_option("--insert-size", cls.insert_size,
                  "Largest fragment a pair spans (0: the sum of the mates' lengths)")
      ->capture_default_str();
  sub->add_option("-t,--threads", opt.threads, "Worker threads (at most 4 x the cores, 1024)")
      ->capture_default_str();
  sub->add_option("--batch-size", opt.batch_size,
                  "Reads (pairs) per batch (GPU default: " +
                      std::to_string(default_gpu_batch_size) + ")")
      ->capture_default_str();
  sub->add_option("--device", cmd->device, "Where to classify: auto (GPU if present), cpu or gpu")
      ->check(CLI::IsMember({"auto", "cpu", "gpu"}))
      ->capture_default_str();
  sub->add_option("--gpu", cmd->gpu.device, "GPU: CUDA device number")->capture_default_str();
  sub->add_option("--gpu-lanes", cmd->gpu.lanes,
                  "GPU: streams the worker threads share (each with its own buffers; at most "
                  "the threads, 64)")
      ->capture_default_str();
  sub->add_flag("-q,--quiet", cmd->quiet, "No summary on stderr");
  sub->callback([cmd, sub] {
    cmd->batch_size_given = sub->count("--batch-size") > 0;
    cmd->gpu_lanes_given = sub->count("--gpu-lanes") > 0;
    run_query(*cmd);
  });
}

}  // namespace metawarp::cli
