#pragma once
// `metawarp query`: reads -> per-read calls -> outputs, on the engine given
// (CPU or GPU, behind QueryEngine).
//
// One reader thread cuts the input into batches of whole raw records (no
// parsing: it is the one serial stage), worker threads parse and classify
// whole batches, and the calling thread writes the batches' output in input
// order (host::OrderedPipeline). The output, and the error reported for bad input (the first in input
// order), are therefore identical for any thread count and batch size. This is
// the reference the GPU query must reproduce.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "db/database.hpp"
#include "io/cut/read_block_cutter.hpp"
#include "output/output_check.hpp"
#include "pipeline/query/classifier.hpp"
#include "taxonomy/rank.hpp"

namespace metawarp::report {
struct ReadProfile;
}

namespace metawarp::pipeline {

class QueryBuffers;

struct QueryOptions {
  // One file: single-end reads (or interleaved pairs with `interleaved`);
  // two files: mates 1 and 2. "-" reads stdin.
  std::vector<std::string> reads;
  bool interleaved = false;
  ClassifierOptions classifier;
  // --minimum-base-quality Q (Kraken2's): a FASTQ base whose quality (Phred+33)
  // is below Q is masked before classification, so no k-mer spans it; FASTA
  // reads are used as they are. The outputs show the reads as read. 0: off.
  unsigned minimum_base_quality = 0;
  unsigned threads = 1;
  std::size_t batch_size = 4096;  // reads or pairs per batch

  // Output paths; "-" is stdout (at most one of them), empty: not written.
  std::string output = "-";   // per-read TSV
  std::string kraken_output;  // Kraken2 per-read format
  std::string report;         // Kraken2 report
  std::string abundance;      // abundance table at abundance_rank
  taxonomy::CanonicalRank abundance_rank = taxonomy::CanonicalRank::species;
  // Add the EM's estimate to the abundance table (report/abundance_em.hpp).
  bool abundance_em = false;
  // The database's read-placement profiles (report/read_profile.hpp; null or
  // empty: none): with one of the sample's layout, the abundance table and
  // --bracken-output take their estimate from it (report/profile_em.hpp).
  const std::vector<report::ReadProfile>* abundance_profiles = nullptr;
  // --bracken-output: the estimate at abundance_rank in Bracken's columns
  // (report/bracken_output.hpp).
  std::string bracken_output;
  bool top_hits = false;      // top-hits column in the per-read TSV
  // Kraken2's variants (docs/cli-query.md, "For Kraken2 users").
  bool use_names = false;           // Kraken2 per-read: "name (taxid N)"
  bool report_zero_counts = false;  // the report lists every taxon of the database
  bool mpa_style = false;           // the report in MetaPhlAn style (kreport2mpa's)
  // The reads themselves, by their call ('#' -> _1/_2 for pairs; pipeline/query/read_outputs.hpp).
  std::string classified_out;
  std::string unclassified_out;
  // Those files as Kraken2 writes them (`metawarp kraken2`): a classified
  // record's header ends in " kraken:taxid|N", and the path of single-end
  // reads keeps a '#' as it is.
  bool kraken2_read_outputs = false;
  // --report-minimizer-data: the report's two columns of Kraken2's, per clade
  // the reads' features found and the distinct ones (report/minimizer_data.hpp).
  bool report_minimizer_data = false;
  // Files the caller writes once for the whole run (--summary-json), not per
  // sample: checked with the query's outputs (the output path rule, distinct
  // from every input and output), neither written nor removed by the query.
  std::vector<output::NamedPath> run_outputs;
  // Set by another thread (a server whose client went away) to end the query:
  // it stops at its next batch with an error, its outputs removed as for any
  // failure. Null: the query runs to its end.
  const std::atomic<bool>* cancelled = nullptr;
};

struct QuerySummary {
  std::uint64_t reads = 0;       // reads or pairs
  std::uint64_t classified = 0;
  std::uint64_t bases = 0;
  double seconds = 0;            // reading, classifying and writing
  // Where the threads spent their time (seconds summed over the threads of a
  // stage), so the bottleneck is visible: the cutters (one thread per reads
  // file, the only serial input stage), the workers' parsing, classifying and
  // formatting and their wait for input, and the writer's output and wait.
  struct Stages {
    double cut_mates1 = 0, cut_mates2 = 0;
    double parse = 0, classify = 0, format = 0, worker_wait = 0;
    double write = 0, writer_wait = 0;
    unsigned workers = 0;
    // A query started while its database loaded (run_query with a
    // PendingDatabase): the seconds from its start until the database was
    // ready, and the batches cut by then. `seconds` above counts from then.
    double database_wait = 0;
    std::uint64_t batches_cut_ahead = 0;
  } stages;
};

// What a running query has written so far, for a progress line read on
// another thread. Updated by the writer as each batch is written, so the two
// counts always describe the same prefix of the input.
struct QueryCounters {
  std::atomic<std::uint64_t> reads{0};  // reads or pairs written
  // Bytes taken from the first reads file up to the end of the batches
  // written (compressed bytes for gzip): compared with the file's size.
  std::atomic<std::uint64_t> first_file_bytes{0};
};

// One read or pair as the batch classifiers see it; mate2 empty for single-end.
struct ReadView {
  std::string_view mate1;
  std::string_view mate2;
};

// The worker's hook: classifies a whole batch. results[i] must equal
// Classifier::classify(reads[i].mate1, reads[i].mate2) for every i, whatever
// the batch size. One instance per worker thread (not shared between threads).
class BatchClassifier {
 public:
  virtual ~BatchClassifier() = default;
  // results.size() == reads.size().
  virtual void classify(std::span<const ReadView> reads, std::span<ReadResult> results) = 0;
};

struct Batch;
class QueryWriter;

// Batches the driver cut together and hands to a streamed engine at once:
// batches[0, count) (more are spare, kept with their buffers), in input order.
struct BatchGroup {
  std::vector<Batch*> batches;
  std::size_t count = 0;
  std::uint64_t text_bytes = 0;  // mates 1 (or single reads) text of the group
};

// How the driver cuts the next group: batches of at most `batch_bytes` of
// mates-1 text, taken while the group's text plus another batch's stays
// within `text_bytes` (one batch at least).
struct GroupLimits {
  std::size_t batch_bytes = 0;
  std::uint64_t text_bytes = 0;
};

// What a streamed engine's run sees of the driver's query.
struct GroupContext {
  const QueryOptions& options;
  io::ReadLayout layout;
  const QueryWriter& writer;  // formats a batch once its results are in
  unsigned threads;           // the query's threads, for the engine's own loops
};

// A streamed engine's work on one query: the driver's source asks it how to
// cut each group (in input order, on the source thread), one step at a time
// parses, classifies and formats a group's batches (classify), and the
// driver's writer writes them in input order.
class GroupClassifier {
 public:
  virtual ~GroupClassifier() = default;
  virtual GroupLimits next_group() = 0;
  // How many groups the driver holds at once, from the cut to the write
  // (each in one step): two by default (one cut while the other is
  // classified: a partitioned engine's memory budget counts two); an engine
  // whose groups pass more steps of their own (prepare, finish: the MPI
  // engine's) asks for more, so that the cut is not held up by the groups
  // behind it.
  virtual std::size_t groups_in_flight() const { return 2; }
  // Optional: each group once it is cut, in input order, on a step of its
  // own, while the group before it is classified (a look-ahead: the MPI
  // engine parses the group and broadcasts its reads here).
  virtual void prepare(BatchGroup& group) { (void)group; }
  virtual void classify(BatchGroup& group) = 0;
  // Optional: each group once classified, in input order, on a step of its
  // own before the write, while the next group is classified (the MPI
  // engine formats its groups here).
  virtual void finish(BatchGroup& group) { (void)group; }
  // Its threads' time, added to the run's stages at the end.
  virtual void add_stages(QuerySummary::Stages& stages) const = 0;
};

// Where reads are classified: the one driver (run_query) cuts the input into
// groups of batches and hands them to an engine. A resident engine (the
// whole database in memory: CPU, GPUs) takes groups of one batch, classified
// by the workers in parallel, each with its own BatchClassifier; a streamed
// engine (the database read part by part: pipeline/query/partitioned_query.hpp)
// takes large groups, one at a time, through a GroupClassifier. An engine
// implements one of the two; make_classifier() is called concurrently by
// the workers.
class QueryEngine {
 public:
  virtual ~QueryEngine() = default;
  // Resident engines: a classifier for one worker thread.
  virtual std::unique_ptr<BatchClassifier> make_classifier() const { return nullptr; }
  // Streamed engines: their part of one query (its reads in `context`);
  // null for a resident engine.
  virtual std::unique_ptr<GroupClassifier> start_groups(const GroupContext& context) const {
    (void)context;
    return nullptr;
  }
};

// The classifier options an engine must be made with for these outputs:
// options.classifier, with the evidence collected when the Kraken output
// (its column 5) or the minimizer-data report is written.
ClassifierOptions engine_options(const QueryOptions& options);

// Throws std::runtime_error when the query's `cancelled` flag is set; the
// query's stages call it once per batch they cut.
void throw_if_cancelled(const QueryOptions& options);

// The CPU engine: Classifier::classify read by read. `db` must outlive it.
std::unique_ptr<QueryEngine> make_cpu_query_engine(const db::Database& db,
                                                   const ClassifierOptions& options);

// Checks, before any work, that every output path may be written (a new path
// or a regular file to replace), that no output is an input, the database or
// another output, and that standard input and output are each named at most
// once. `database` may be empty (a database already in memory). Throws
// std::runtime_error naming the paths.
void check_query_paths(const QueryOptions& options, const std::filesystem::path& database);
// The outputs, each with its option name.
std::vector<output::NamedPath> query_outputs(const QueryOptions& options);

// Throws io::InputError for bad reads (mismatched pairs included) and
// std::runtime_error naming the file when an output cannot be written. The
// outputs are written atomically; when the query fails, none of them is left
// at its path (an older file there is removed too).
// `engine` classifies the batches (nullptr: the CPU engine); it must have been
// made for the same database and classifier options. `counters`, when given,
// follow the query's progress (pipeline/query/query_progress.hpp prints them).
// `buffers`, when given, are the batches' and workers' memory, kept from one
// query to the next (pipeline/query/query_buffers.hpp); one query at a time.
QuerySummary run_query(const db::Database& db, const QueryOptions& options,
                       const QueryEngine* engine = nullptr, QueryCounters* counters = nullptr,
                       QueryBuffers* buffers = nullptr);

// What a query runs on once its database has loaded.
struct LoadedDatabase {
  const db::Database* database = nullptr;
  const QueryEngine* engine = nullptr;  // made for `database` and the query's options
  QueryCounters* counters = nullptr;    // may be null
};
// A database still loading (on another thread) when the query starts.
// `wait` returns it, or throws the load's error; it is called once, on one of
// the query's threads, before any batch is classified.
struct PendingDatabase {
  std::function<LoadedDatabase()> wait;
  // The engine will be a streamed one: it sizes the groups, so the reads are
  // cut only once it is there.
  bool streamed = false;
};

// The same query, its reads opened, decompressed and cut into batches while
// the database loads (docs/architecture.md, "Reading while the database
// loads"): the outputs and errors of run_query(*loaded.database, ...), the
// first batches already waiting when it is ready. `summary.seconds` counts
// from then.
QuerySummary run_query(const PendingDatabase& pending, const QueryOptions& options,
                       QueryBuffers* buffers = nullptr);

}  // namespace metawarp::pipeline
