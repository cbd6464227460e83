// `metawarp build DB REF...`: options, validation at the edge, then the pipeline.
#include <chrono>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <vector>

#include "cli/build_command.hpp"
#include "cli/build_warnings.hpp"
#include "cli/commands.hpp"
#include "cli/device_choice.hpp"
#include "cli/number_options.hpp"
#include "cli/run_summary.hpp"
#include "cli/sampling_option.hpp"
#include "cli/thread_limit.hpp"
#include "metawarp/host/clock.hpp"
#include "metawarp/host/cores.hpp"
#include "metawarp/sketch/sampling.hpp"
#include "metawarp/sketch/types.hpp"
#include "pipeline/build/build.hpp"
#include "pipeline/build/build_estimate.hpp"
#include "pipeline/build/build_inputs.hpp"
#include "pipeline/gpu_available.hpp"
#include "pipeline/query/query_output.hpp"
#include "pipeline/shard_layout.hpp"

namespace metawarp::cli {
namespace {

// Refused here, before the build starts: an unbounded thread count and a
// database on standard output (the numbers' ranges were checked as they were
// parsed). The database path itself is checked by the build driver against
// every file the build reads, before any work.
void check_before_work(BuildCommand& cmd) {
  auto& opt = cmd.options;
  const Bounded threads = bound_threads("build", opt.threads, available_cores());
  print_notice(threads, opt.quiet);
  opt.threads = threads.value;
  host::limit_cores(opt.threads);  // the load, index and decoders too, not only the workers
  if (cmd.database == "-")
    throw std::invalid_argument("the database cannot go to standard output ('-'); give a file");
  if (!cmd.gpus.empty() || cmd.shards_per_gpu != 1) {
    opt.gpu.layout.devices =
        cmd.gpus.empty() ? std::vector<int>{opt.gpu.device} : pipeline::parse_gpu_list(cmd.gpus);
    opt.gpu.layout.shards_per_gpu = cmd.shards_per_gpu;
    opt.gpu.layout_given = true;
  }
  // Checked with the database by the build driver, before any work.
  if (!cmd.summary_json.empty()) opt.run_outputs = {{summary_json_option, cmd.summary_json}};
}

// What --device auto weighs for this build: the references on its threads;
// GPU options (--gpus) ask for the GPU wherever one is usable.
Workload build_workload(const BuildCommand& cmd) {
  if (cmd.options.gpu.layout_given) return Workload{0, cmd.options.threads, "--gpus given"};
  return Workload{pipeline::estimate_input_bytes(pipeline::find_build_inputs(cmd.options).files),
                  cmd.options.threads, {}};
}

}  // namespace

void run_build(BuildCommand& cmd) {
  const auto start = std::chrono::steady_clock::now();
  check_before_work(cmd);
  const bool gpu = use_gpu(cmd.device, "build", cmd.options.quiet, cmd.verbose,
                           cmd.device == "auto" ? build_workload(cmd) : Workload{}, build_rates);
  // The GPUs' start-up beside the inputs' listing and the taxonomy's load.
  std::optional<pipeline::GpuStartUp> start_up;
  if (gpu)
    start_up.emplace(cmd.options.gpu.layout_given ? cmd.options.gpu.layout.devices
                                                  : std::vector<int>{cmd.options.gpu.device});
  const double before_pipeline = host::seconds_since(start);
  if (gpu && cmd.options.cpu_shards > 1)
    throw std::invalid_argument("--shards is for --device cpu; on GPUs use --gpus and --shards-per-gpu");
  if (!gpu && cmd.options.gpu.layout_given)
    throw std::invalid_argument("--gpus and --shards-per-gpu need the GPU build (--device gpu)");
  // On the GPU the partitions follow from its memory plan unless given.
  pipeline::BuildSummary summary = pipeline::run_build(
      cmd.options, cmd.database,
      gpu ? pipeline::make_gpu_build_executor : pipeline::make_cpu_build_executor,
      gpu ? pipeline::PartitionsNeeded(pipeline::gpu_partitions_needed) : nullptr);
  summary.seconds_prepare += before_pipeline;
  const double total = host::seconds_since(start);
  // After the database: a failed build keeps the database and the summary
  // that were there.
  pipeline::OutputFile summary_file(cmd.summary_json);
  if (summary_file.enabled()) {
    summary_file.write(build_summary(cmd.database, cmd.options, summary, gpu, total).text());
    summary_file.close();
  }
  if (cmd.options.quiet) return;
  std::fprintf(stderr,
               "build: %llu files, %llu targets (%llu unmapped), %.1f Mbp, %llu features, "
               "%llu locations\n"
               "build: prepare %.2f s, setup %.2f s, read+sketch %.2f s, finalize %.2f s, write "
               "%.2f s; total "
               "%.2f s, %.1f MB/s of input (%.1f MB/s to the database in memory)\n",
               (unsigned long long)summary.files, (unsigned long long)summary.targets,
               (unsigned long long)summary.unmapped_targets, double(summary.bases) / 1e6,
               (unsigned long long)summary.features, (unsigned long long)summary.locations,
               summary.seconds_prepare, summary.seconds_setup, summary.seconds_read_sketch,
               summary.seconds_finalize,
               summary.seconds_write, total, double(summary.input_bytes) / 1e6 / total,
               double(summary.input_bytes) / 1e6 / (total - summary.seconds_write));
  if (summary.partitions > 1)
    std::fprintf(stderr,
                 "build: %u partitions (the references read once per partition; the times "
                 "above are their sums)\n",
                 summary.partitions);
  if (cmd.verbose)
    std::fprintf(stderr, "build: read+sketch: waiting for the readers' records %.2f s\n",
                 summary.seconds_read_wait);
  if (cmd.verbose && !summary.executor_stages.empty())
    std::fprintf(stderr, "build: %s\n", summary.executor_stages.c_str());
  std::fputs(build_warnings(summary, cmd.database).c_str(), stderr);
}

void add_build_command(CLI::App& app) {
  auto cmd = std::make_shared<BuildCommand>();
  auto& opt = cmd->options;
  opt.threads = available_cores();
  CLI::App* sub = app.add_subcommand("build", "Build a database from reference genomes");
  sub->add_option("database", cmd->database, "Database file to write")->required();
  sub->add_option("references", opt.references,
                  "Reference FASTA/FASTQ files (.gz ok) or directories")
      ->required();
  CLI::Option* taxonomy =
      sub->add_option("--taxonomy", opt.taxonomy_dir,
                      "NCBI taxonomy folder (nodes.dmp, names.dmp, merged.dmp)")
          ->check(CLI::ExistingDirectory);
  CLI::Option* gtdb =
      sub->add_option("--gtdb-taxonomy", opt.gtdb_taxonomy_files,
                      "GTDB taxonomy TSV (accession<TAB>d__...;s__...; repeatable, .gz ok) "
                      "instead of --taxonomy: genomes mapped by the accession their file "
                      "names start with (GCF_000005845.2_genomic.fna.gz)")
          ->check(CLI::ExistingFile)
          ->excludes(taxonomy);
  sub->add_flag("--no-taxonomy", opt.allow_no_taxonomy,
                "Build without a taxonomy on purpose: reads can then only be reported by "
                "target (query --top-hits)")
      ->excludes(taxonomy)
      ->excludes(gtdb);
  sub->add_flag("--allow-empty", opt.allow_empty,
                "Accept references without any sequence (an empty database)");
  sub->add_flag("--allow-no-taxa", opt.allow_no_taxa,
                "Accept a build in which no target has a taxon (a taxonomy but no map naming "
                "the references): reads can then only be reported by target (query --top-hits)");
  sub->add_option("--seqid2taxid", opt.seqid2taxid_files,
                  "Sequence id to taxid map (Kraken2 two-column format)")
      ->check(CLI::ExistingFile);
  sub->add_option("--accession2taxid", opt.accession2taxid_files,
                  "NCBI accession2taxid files (.gz ok)")
      ->check(CLI::ExistingFile);
  CLI::Option* kmer_length =
      add_number(*sub, "-k,--kmer-length", opt.params.sketch.k,
                 "k-mer length (default 20; 16 with --sampling window)", 1u, sketch::max_k);
  add_number(*sub, "-w,--window-length", opt.params.sketch.window,
             "Window length in bases (at least k)", 1u, sketch::max_window);
  CLI::Option* sketch_size =
      add_number(*sub, "-s,--sketch-size", opt.params.sketch.sketch_size,
                 "Features kept per window (with --sampling scaled or minimizer: at most; "
                 "default " + std::to_string(sketch::max_sketch_size) +
                     "; 16 with --sampling window)",
                 1u, sketch::max_sketch_size);
  add_sampling(*sub, opt.params.sketch);
  add_number(*sub, "--max-locations-per-feature", opt.params.max_locations_per_feature,
             "Keep at most this many (target, window) locations per feature: the smallest", 1u);
  sub->add_flag("--remove-overpopulated-features", opt.params.remove_overpopulated_features,
                "Drop features whose location list reached the cap");
  add_number(*sub, "-t,--threads", opt.threads, "Worker threads (at most 4 x the cores, 1024)",
             1u);
  auto* quiet = sub->add_flag("-q,--quiet", opt.quiet, "No progress or summary on stderr");
  sub->add_flag("-v,--verbose", cmd->verbose, "Also the executor's time per stage")
      ->excludes(quiet);
  sub->add_option("--device", cmd->device, "Where to build: auto (the GPU if present and the references large enough), cpu or gpu")
      ->check(CLI::IsMember({"auto", "cpu", "gpu"}))
      ->capture_default_str();
  sub->add_option("--table", cmd->table, "GPU build table: multi-value or bucket-list")
      ->check(CLI::IsMember({"multi-value", "bucket-list"}))
      ->capture_default_str();
  add_number(*sub, "--batch-size", opt.gpu.batch_bases, "GPU: bases per host-to-device batch", 1);
  add_size(*sub, "--max-gpu-memory,--gpu-memory-limit", opt.gpu.memory_limit,
           "GPU: use at most this many bytes of each GPU's memory (0: all that is free; "
           "suffixes k, m, g, t: 2^10, 2^20, 2^30, 2^40); a database that needs more is built in "
           "partitions");
  add_number(*sub, "--table-capacity", opt.gpu.table_capacity,
             "GPU: (feature, location) pairs of the whole database the tables hold, each "
             "shard and partition its share (0: estimated from the input)");
  auto* gpu_device = add_number(*sub, "--gpu", opt.gpu.device, "GPU: CUDA device number", 0);
  sub->add_option("--gpus", cmd->gpus,
                  "GPU: spread the build over these GPUs: a count N (devices 0..N-1) or a list "
                  "(0,2,3); one shard of the database each")
      ->excludes(gpu_device);
  add_number(*sub, "--shards-per-gpu", cmd->shards_per_gpu,
             "GPU: shards per GPU (several on one GPU exercise the multi-GPU split)", 1u,
             pipeline::max_shards_per_gpu);
  // Each shard runs at least one thread of its own.
  add_number(*sub, "--shards", opt.cpu_shards,
             "CPU: build in this many shards side by side (the same database; for tests)", 1u,
             thread_ceiling);
  // Two flags, so that each is an option of its own in --help and the completion.
  auto* sync = sub->add_flag("--sync", cmd->sync,
                             "Make a new database durable (fsync) before the build ends (the "
                             "default). A database that replaces one is always synced before "
                             "the old one goes");
  sub->add_flag("--no-sync", cmd->no_sync,
                "Leave a new database's write-back to the kernel: a power cut soon after may "
                "damage it, which its checksums find at the next load")
      ->excludes(sync);
  sub->add_option("--summary-json", cmd->summary_json,
                  "Write a summary of the build as JSON (inputs, counts, rates, database, times) "
                  "to this file ('-': stdout)");
  add_number(*sub, "--partitions", opt.partitions,
             "Build the database in this many parts by feature range, one pass over the "
             "references each, each written as it completes (0: as many as the memory "
             "limits need; the database is the same)",
             0u, pipeline::max_partitions);
  add_size(*sub, "--partition-size", opt.partition_bytes,
           "Host memory per partition in bytes (suffixes k, m, g, t); sets the number of "
           "partitions unless --partitions is given (0: no limit)");
  sub->callback([cmd, kmer_length, sketch_size] {
    // k and s not given: the sampling's own defaults.
    sketch::SketchParams& sketch = cmd->options.params.sketch;
    const sketch::SketchParams defaults =
        sketch::default_sketch_params(sketch.sampling, sketch.sampling_parameter);
    if (kmer_length->count() == 0) sketch.k = defaults.k;
    if (sketch_size->count() == 0) sketch.sketch_size = defaults.sketch_size;
    cmd->options.sync = cmd->no_sync ? output::Sync::when_replacing : output::Sync::always;
    cmd->options.gpu.table = cmd->table == "bucket-list" ? pipeline::BuildTable::bucket_list
                                                          : pipeline::BuildTable::multi_value;
    run_build(*cmd);
  });
}

}  // namespace metawarp::cli
