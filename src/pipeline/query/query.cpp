#include "pipeline/query/query.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <exception>
#include <filesystem>
#include <mutex>
#include <optional>
#include <stdexcept>

#include "io/cut/read_block_cutter.hpp"
#include "io/parse/sequence_reader.hpp"
#include "metawarp/host/clock.hpp"
#include "metawarp/host/ordered_pipeline.hpp"
#include "output/output_check.hpp"
#include "pipeline/query/query_batch.hpp"
#include "pipeline/query/query_buffers.hpp"
#include "pipeline/query/read_outputs.hpp"

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

// What each worker of a resident engine keeps from batch to batch.
struct Worker {
  std::unique_ptr<BatchClassifier> classifier;  // made on the worker's thread
  ParsedBatch* parsed = nullptr;                // in the run's QueryBuffers
  double parse = 0, classify = 0, format = 0;
};

// The one query driver (docs/architecture.md, "The query's one driver"):
// the reads cut into groups of batches (the source step, and mates 2 in step),
// each group handed to the engine, the batches written in input order. A
// resident engine's groups are single batches, classified by `threads`
// workers at once; a streamed engine's are as large as its memory allows,
// classified one at a time by its GroupClassifier.
class QueryRun {
 public:
  // `wait` gives the database and engine; with `database_pending` it is
  // called once a batch needs them (the reads are cut meanwhile; not for a
  // streamed engine, which sizes the groups), else at the start of run().
  QueryRun(const QueryOptions& o, std::function<LoadedDatabase()> wait, bool database_pending,
           QueryBuffers* buffers)
      : options_(o),
        own_buffers_(buffers ? nullptr : std::make_unique<QueryBuffers>()),
        buffers_(buffers ? *buffers : *own_buffers_),
        wait_(std::move(wait)),
        database_pending_(database_pending),
        reads_(open_reads(o)) {}

  QuerySummary run() {
    start_ = std::chrono::steady_clock::now();
    if (!database_pending_) ready();
    const unsigned threads = options_.threads == 0 ? 1 : options_.threads;
    const std::size_t batch_bytes = batch_byte_limit(options_, reads_, threads);
    // A streamed engine is known here (its database is never pending).
    GroupClassifier* streamed = groups_.get();
    std::vector<Worker> workers(streamed ? 0 : threads);
    if (!streamed) {
      std::vector<ParsedBatch>& parsed = buffers_.parsed(threads);
      for (unsigned w = 0; w < threads; ++w) workers[w].parsed = &parsed[w];
    }
    // Groups in flight: enough to keep every worker busy; a streamed engine's
    // own count (GroupClassifier::groups_in_flight).
    const std::size_t slots = streamed ? streamed->groups_in_flight() : batches_in_flight(threads);
    QuerySummary::Stages& stages = summary_.stages;
    stages.workers = threads;

    // Cutting is the one serial input stage, so it leaves the parsing to the
    // workers; with two files, mates 1 and mates 2 are cut (and decompressed)
    // by two threads at once, and a plain file is read by several threads
    // (io/cut/cut_source.hpp, docs/architecture.md "Cutting reads").
    host::OrderedPipeline<BatchGroup> pipeline(slots);
    pipeline.source([&](BatchGroup& group) {
      host::Stopwatch clock;
      cut_group(group, streamed ? streamed->next_group() : GroupLimits{batch_bytes, 0});
      stages.cut_mates1 += clock.lap();
      return group.count > 0;
    });
    if (reads_.layout() == io::ReadLayout::two_files)
      pipeline.serial([&](BatchGroup& group) {
        host::Stopwatch clock;
        for (std::size_t b = 0; b < group.count; ++b)
          group.batches[b]->empty = !reads_.cut_second(group.batches[b]->blocks);
        stages.cut_mates2 += clock.lap();
      });
    if (streamed) pipeline.serial([&](BatchGroup& group) { streamed->prepare(group); });
    pipeline.parallel(streamed ? 1 : threads, [&](BatchGroup& group, unsigned w) {
      if (streamed)
        streamed->classify(group);
      else
        parse_and_classify(*group.batches[0], workers[w]);
    });
    if (streamed) pipeline.serial([&](BatchGroup& group) { streamed->finish(group); });
    pipeline.run([&](BatchGroup& group) {
      ready();
      host::Stopwatch clock;
      for (std::size_t b = 0; b < group.count; ++b) writer_->write(*group.batches[b], summary_);
      stages.write += clock.lap();
    });
    ready();  // input without a read still has its outputs (and the database's errors)
    const std::vector<double>& waits = pipeline.wait_seconds();
    stages.worker_wait = waits[waits.size() - 2];
    stages.writer_wait = waits.back();
    for (const Worker& w : workers) {
      stages.parse += w.parse;
      stages.classify += w.classify;
      stages.format += w.format;
    }
    if (streamed) streamed->add_stages(stages);

    writer_->finish(summary_);
    summary_.seconds = host::seconds_since(ready_at_);
    return summary_;
  }

 private:
  // The database and engine, waited for once, by whichever thread needs them
  // first; the writer (whose formatter reads the database) is made then, and
  // a streamed engine's run.
  const LoadedDatabase& ready() {
    std::call_once(ready_once_, [&] {
      try {
        loaded_ = wait_();
        writer_.emplace(*loaded_.database, options_,
                        loaded_.counters ? *loaded_.counters : own_counters_);
        const unsigned threads = options_.threads == 0 ? 1 : options_.threads;
        groups_ = loaded_.engine->start_groups(
            GroupContext{options_, reads_.layout(), *writer_, threads});
      } catch (...) {
        ready_error_ = std::current_exception();
      }
      ready_at_ = std::chrono::steady_clock::now();
      summary_.stages.database_wait = std::chrono::duration<double>(ready_at_ - start_).count();
      summary_.stages.batches_cut_ahead = batches_cut_.load(std::memory_order_relaxed);
    });
    if (ready_error_) std::rethrow_exception(ready_error_);
    return loaded_;
  }

  // Cuts batches into `group` as `limits` allow, until the input ends.
  // Batches come from the run's QueryBuffers and stay with the group (a
  // place in the pipeline) for its next fills.
  void cut_group(BatchGroup& group, const GroupLimits& limits) {
    group.count = 0;
    group.text_bytes = 0;
    while (!input_done_) {
      if (group.count > 0 &&
          (limits.text_bytes == 0 || group.text_bytes + limits.batch_bytes > limits.text_bytes))
        break;
      if (group.count == group.batches.size()) {
        std::deque<Batch>& pool = buffers_.batches(batches_taken_ + 1);
        group.batches.push_back(&pool[batches_taken_++]);
      }
      Batch& batch = *group.batches[group.count];
      throw_if_cancelled(options_);
      if (!reads_.cut_first(batch.blocks, options_.batch_size, limits.batch_bytes)) {
        input_done_ = true;
        break;
      }
      batch.empty = false;
      batch.first_file_bytes = reads_.first_raw_bytes_read();
      ++group.count;
      group.text_bytes += batch.blocks.first.bytes.size();
      batches_cut_.fetch_add(1, std::memory_order_relaxed);
    }
  }

  // A batch is parsed before the database is waited for: parsing needs none.
  void parse_and_classify(Batch& batch, Worker& worker) {
    host::Stopwatch clock;
    ParsedBatch& parsed = *worker.parsed;
    const bool reads = parse_batch(options_, reads_.layout(), batch, parsed);
    worker.parse += clock.lap();
    const LoadedDatabase& loaded = ready();
    clock.lap();  // the wait is the database's, not the worker's
    if (!reads) return;
    if (!worker.classifier) worker.classifier = loaded.engine->make_classifier();
    const std::span<ReadResult> results(parsed.results.data(), parsed.reads.size());
    worker.classifier->classify(parsed.reads, results);
    worker.classify += clock.lap();
    writer_->format(batch, parsed, reads_.paired());
    worker.format += clock.lap();
  }

  const QueryOptions& options_;
  std::unique_ptr<QueryBuffers> own_buffers_;  // when the caller keeps none
  QueryBuffers& buffers_;
  std::function<LoadedDatabase()> wait_;
  bool database_pending_;
  io::ReadBlockCutter reads_;
  bool input_done_ = false;        // the source's
  std::size_t batches_taken_ = 0;  // of buffers_, by the source
  std::once_flag ready_once_;
  LoadedDatabase loaded_;
  std::exception_ptr ready_error_;
  std::chrono::steady_clock::time_point start_, ready_at_;
  std::atomic<std::uint64_t> batches_cut_{0};
  QueryCounters own_counters_;  // when the caller follows no progress
  std::optional<QueryWriter> writer_;  // made once the database is there
  std::unique_ptr<GroupClassifier> groups_;  // a streamed engine's run
  QuerySummary summary_;
};

}  // namespace

void throw_if_cancelled(const QueryOptions& options) {
  if (options.cancelled && options.cancelled->load(std::memory_order_relaxed))
    throw std::runtime_error("the query was cancelled (its client went away)");
}

std::vector<output::NamedPath> query_outputs(const QueryOptions& options) {
  std::vector<output::NamedPath> outputs{{"--output", options.output},
                                         {"--kraken-output", options.kraken_output},
                                         {"--report", options.report},
                                         {"--abundance", options.abundance},
                                         {"--bracken-output", options.bracken_output}};
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
    const std::vector<std::string> paths =
        mate_paths(path, paired, label, options.kraken2_read_outputs);
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
  std::vector<output::NamedPath> outputs = query_outputs(options);
  outputs.insert(outputs.end(), options.run_outputs.begin(), options.run_outputs.end());
  output::check_outputs(outputs, inputs);
}

std::unique_ptr<QueryEngine> make_cpu_query_engine(const db::Database& db,
                                                   const ClassifierOptions& options) {
  return std::make_unique<CpuQueryEngine>(db, options);
}

QuerySummary run_query(const db::Database& db, const QueryOptions& options,
                       const QueryEngine* engine, QueryCounters* counters,
                       QueryBuffers* buffers) {
  return run_with_safe_outputs(options, [&] {
    // The CPU engine when none was given (its Classifier validates the
    // options before the reads are opened; a given engine validated them
    // when it was made).
    std::unique_ptr<QueryEngine> own_engine;
    if (!engine) {
      own_engine = make_cpu_query_engine(db, engine_options(options));
      engine = own_engine.get();
    }
    const LoadedDatabase loaded{&db, engine, counters};
    return QueryRun(options, [&] { return loaded; }, /*database_pending=*/false, buffers).run();
  });
}

QuerySummary run_query(const PendingDatabase& pending, const QueryOptions& options,
                       QueryBuffers* buffers) {
  return run_with_safe_outputs(options, [&] {
    return QueryRun(options, pending.wait, /*database_pending=*/!pending.streamed, buffers).run();
  });
}

}  // namespace metawarp::pipeline
