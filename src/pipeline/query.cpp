#include "pipeline/query.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <filesystem>
#include <stdexcept>

#include "io/read_blocks.hpp"
#include "io/sequence_reader.hpp"
#include "metawarp/host/clock.hpp"
#include "metawarp/host/ordered_pipeline.hpp"
#include "output/output_check.hpp"
#include "pipeline/query_batch.hpp"
#include "pipeline/query_buffers.hpp"
#include "pipeline/read_outputs.hpp"

namespace metawarp::pipeline {

namespace {

// The CPU batch classifier: the reference Classifier (classify_many).
class CpuBatchClassifier final : public BatchClassifier {
 public:
  explicit CpuBatchClassifier(const Classifier& classifier) : classifier_(classifier) {}
  void classify(std::span<const ReadView> reads, std::span<ReadResult> results) override {
    classifier_.classify_many(reads, results.data(), scratch_);
  }

 private:
  const Classifier& classifier_;
  ClassifierScratch scratch_;
};

class CpuQueryEngine final : public QueryEngine {
 public:
  CpuQueryEngine(const db::Database& db, const ClassifierOptions& options)
      : classifier_(db, options) {}
  std::unique_ptr<BatchClassifier> make_classifier() const override {
    return std::make_unique<CpuBatchClassifier>(classifier_);
  }

 private:
  Classifier classifier_;
};

// The batch byte limit for this query's first reads file (its size when it
// is a regular file: a pipe's says nothing).
std::size_t batch_byte_limit(const QueryOptions& o, const io::ReadBlockCutter& reads,
                             unsigned threads) {
  std::error_code error;
  const std::uintmax_t size =
      o.reads.empty() || o.reads[0] == "-" ? 0 : std::filesystem::file_size(o.reads[0], error);
  return batch_byte_limit(o, error ? 0 : size, reads.first_compressed(), threads);
}

// What each worker keeps from batch to batch.
struct Worker {
  std::unique_ptr<BatchClassifier> classifier;  // made on the worker's thread
  ParsedBatch* parsed = nullptr;                // in the run's QueryBuffers
  double parse = 0, classify = 0, format = 0;
};

// A place in the pipeline: a batch of the run's QueryBuffers, taken when the
// place is first filled (the pipeline makes its items, the buffers outlive it).
struct BatchSlot {
  Batch* batch = nullptr;
};

class QueryRun {
 public:
  QueryRun(const db::Database& db, const QueryOptions& o, const QueryEngine* engine,
           QueryCounters* counters, QueryBuffers* buffers)
      : options_(o),
        own_buffers_(buffers ? nullptr : std::make_unique<QueryBuffers>()),
        buffers_(buffers ? *buffers : *own_buffers_),
        own_engine_(engine ? nullptr : make_cpu_query_engine(db, engine_options(o))),
        engine_(engine ? *engine : *own_engine_),
        reads_(open_reads(o)),
        writer_(db, o, counters ? *counters : own_counters_) {}

  QuerySummary run() {
    const auto start = std::chrono::steady_clock::now();
    const unsigned threads = options_.threads == 0 ? 1 : options_.threads;
    const std::size_t batch_bytes = batch_byte_limit(options_, reads_, threads);
    std::vector<Worker> workers(threads);
    std::vector<ParsedBatch>& parsed = buffers_.parsed(threads);
    for (unsigned w = 0; w < threads; ++w) workers[w].parsed = &parsed[w];
    const std::size_t slots = batches_in_flight(threads);
    std::vector<Batch>& batches = buffers_.batches(slots);
    std::size_t batches_taken = 0;
    QuerySummary::Stages& stages = summary_.stages;
    stages.workers = threads;

    // Cutting is the one serial input stage, so it leaves the parsing to the
    // workers; with two files, mates 1 and mates 2 are cut (and decompressed)
    // by two threads at once, and a plain file is read by several threads
    // (io/cut_source.hpp, docs/architecture.md "Cutting reads"). Batches in
    // flight: enough to keep every worker busy.
    host::OrderedPipeline<BatchSlot> pipeline(slots);
    pipeline.source([&](BatchSlot& slot) {
      if (!slot.batch) slot.batch = &batches[batches_taken++];
      Batch& batch = *slot.batch;
      host::Stopwatch clock;
      const bool more = reads_.cut_first(batch.blocks, options_.batch_size, batch_bytes);
      batch.empty = false;
      batch.first_file_bytes = reads_.first_raw_bytes_read();
      stages.cut_mates1 += clock.lap();
      return more;
    });
    if (reads_.layout() == io::ReadLayout::two_files)
      pipeline.serial([&](BatchSlot& slot) {
        host::Stopwatch clock;
        slot.batch->empty = !reads_.cut_second(slot.batch->blocks);
        stages.cut_mates2 += clock.lap();
      });
    pipeline.parallel(threads, [&](BatchSlot& slot, unsigned w) {
      Worker& worker = workers[w];
      if (!worker.classifier) worker.classifier = engine_.make_classifier();
      parse_and_classify(*slot.batch, worker);
    });
    pipeline.run([&](BatchSlot& slot) {
      host::Stopwatch clock;
      writer_.write(*slot.batch, summary_);
      stages.write += clock.lap();
    });
    const std::vector<double>& waits = pipeline.wait_seconds();
    stages.worker_wait = waits[waits.size() - 2];
    stages.writer_wait = waits.back();
    for (const Worker& w : workers) {
      stages.parse += w.parse;
      stages.classify += w.classify;
      stages.format += w.format;
    }

    writer_.finish(summary_);
    summary_.seconds = host::seconds_since(start);
    return summary_;
  }

 private:
  void parse_and_classify(Batch& batch, Worker& worker) const {
    host::Stopwatch clock;
    ParsedBatch& parsed = *worker.parsed;
    if (!parse_batch(reads_.layout(), batch, parsed)) return;
    worker.parse += clock.lap();
    const std::span<ReadResult> results(parsed.results.data(), parsed.reads.size());
    worker.classifier->classify(parsed.reads, results);
    worker.classify += clock.lap();
    writer_.format(batch, parsed, reads_.paired());
    worker.format += clock.lap();
  }

  const QueryOptions& options_;
  std::unique_ptr<QueryBuffers> own_buffers_;  // when the caller keeps none
  QueryBuffers& buffers_;
  // The CPU engine when none was given (its Classifier validates the options;
  // a given engine validated them when it was made).
  std::unique_ptr<QueryEngine> own_engine_;
  const QueryEngine& engine_;
  io::ReadBlockCutter reads_;
  QueryCounters own_counters_;  // when the caller follows no progress
  // Open from the start (as temporaries), so that a failed query removes
  // older files at every output path, not only at those written so far.
  QueryWriter writer_;
  QuerySummary summary_;
};

}  // namespace

std::vector<output::NamedPath> query_outputs(const QueryOptions& options) {
  std::vector<output::NamedPath> outputs{{"--output", options.output},
                                         {"--kraken-output", options.kraken_output},
                                         {"--report", options.report},
                                         {"--abundance", options.abundance}};
  // The reads outputs name a file per mate for pairs; a template without
  // reads (samples' paths before their reads are known) is taken as it is.
  const bool paired = options.reads.size() == 2 || options.interleaved;
  for (const auto& [label, path] : {std::pair<std::string, std::string>{"--classified-out",
                                                                        options.classified_out},
                                    {"--unclassified-out", options.unclassified_out}}) {
    if (options.reads.empty()) {
      outputs.push_back({label, path});
      continue;
    }
    const std::vector<std::string> paths = mate_paths(path, paired, label);
    for (std::size_t m = 0; m < paths.size(); ++m)
      outputs.push_back({paths.size() == 2 ? label + " (mates " + std::to_string(m + 1) + ")"
                                           : label,
                         paths[m]});
  }
  return outputs;
}

void check_query_paths(const QueryOptions& options, const std::filesystem::path& database) {
  std::vector<output::NamedPath> inputs;
  if (!database.empty()) inputs.push_back({"database", database.string()});
  for (std::size_t i = 0; i < options.reads.size(); ++i)
    inputs.push_back(
        {options.reads.size() == 2 ? "reads " + std::to_string(i + 1) : "reads", options.reads[i]});
  output::check_outputs(query_outputs(options), inputs);
}

std::unique_ptr<QueryEngine> make_cpu_query_engine(const db::Database& db,
                                                   const ClassifierOptions& options) {
  return std::make_unique<CpuQueryEngine>(db, options);
}

QuerySummary run_query(const db::Database& db, const QueryOptions& options,
                       const QueryEngine* engine, QueryCounters* counters,
                       QueryBuffers* buffers) {
  return run_with_safe_outputs(
      options, [&] { return QueryRun(db, options, engine, counters, buffers).run(); });
}

}  // namespace metawarp::pipeline
