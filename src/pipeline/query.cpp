#include "pipeline/query.hpp"

#include <chrono>
#include <exception>
#include <stdexcept>

#include "io/read_blocks.hpp"
#include "io/sequence_reader.hpp"
#include "metawarp/host/clock.hpp"
#include "metawarp/host/ordered_pipeline.hpp"
#include "output/output_check.hpp"
#include "output/output_path.hpp"
#include "output/remove_on_failure.hpp"
#include "pipeline/query_output.hpp"
#include "report/abundance.hpp"
#include "report/kraken_report.hpp"
#include "report/per_read.hpp"
#include "report/taxon_counts.hpp"

namespace metawarp::pipeline {

namespace {

// The text of a batch's mates 1 (or single reads) stops at the first record
// boundary past this many bytes, whatever the batch size, so memory stays
// bounded with long reads: a batch holds about this many bases or fewer
// (FASTQ text is twice its bases; mates 2 are about as long as mates 1).
constexpr std::size_t max_batch_bytes = std::size_t(64) << 20;

// A batch's formatted lines and calls, or its bad input: written out, in
// batch order, instead of its reads.
struct BatchOutput {
  std::string tsv;
  std::string kraken;
  std::vector<taxonomy::taxid_t> calls;  // taxid per read, for the report
  std::uint64_t bases = 0;
  std::exception_ptr error;
};

io::ReadBlockCutter open_reads(const QueryOptions& o) {
  if (o.reads.empty() || o.reads.size() > 2)
    throw std::invalid_argument("query needs one reads file (or two for pairs)");
  if (o.reads.size() == 2 && o.interleaved)
    throw std::invalid_argument("--interleaved takes one reads file, not two");
  return io::ReadBlockCutter(o.reads, o.interleaved);
}

// The fragment's id: mate 1's id without a trailing "/1".
std::string_view read_id(const io::SequenceRecord& mate1, bool paired) {
  std::string_view id = mate1.id();
  if (paired && id.size() > 2 && id[id.size() - 2] == '/' && id.back() == '1')
    id.remove_suffix(2);
  return id;
}

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

// A batch: raw text cut by the source step, parsed and classified by a
// worker, written by the sink. The pipeline reuses its batches, so their
// buffers keep their capacity and refilling one allocates (nearly) nothing;
// parsed records exist once per worker.
struct Batch {
  io::ReadBlocks blocks;
  bool empty = false;  // nothing to classify: mates 2 ended with mates 1
  std::uint64_t first_file_bytes = 0;  // taken from the first file once it was cut
  BatchOutput out;
};

// What each worker keeps from batch to batch.
struct Worker {
  std::unique_ptr<BatchClassifier> classifier;  // made on the worker's thread
  std::vector<io::SequenceRecord> mates1;  // parsed; entries past the batch's count are spare
  std::vector<io::SequenceRecord> mates2;  // unused for single-end reads
  std::vector<ReadView> reads;
  std::vector<ReadResult> results;
  double parse = 0, classify = 0, format = 0;
};

class QueryRun {
 public:
  QueryRun(const db::Database& db, const QueryOptions& o, const QueryEngine* engine,
           QueryCounters* counters)
      : db_(db),
        options_(o),
        own_engine_(engine ? nullptr : make_cpu_query_engine(db, o.classifier)),
        engine_(engine ? *engine : *own_engine_),
        formatter_(db, o.top_hits),
        reads_(open_reads(o)),
        tsv_(o.output),
        kraken_(o.kraken_output),
        report_(o.report),
        abundance_(o.abundance),
        counters_(counters ? *counters : own_counters_) {}

  QuerySummary run() {
    const auto start = std::chrono::steady_clock::now();
    tsv_.write(formatter_.tsv_header());
    const unsigned threads = options_.threads == 0 ? 1 : options_.threads;
    std::vector<Worker> workers(threads);
    QuerySummary::Stages& stages = summary_.stages;
    stages.workers = threads;

    // Cutting is the one serial input stage, so it leaves the parsing to the
    // workers; with two files, mates 1 and mates 2 are cut (and decompressed)
    // by two threads at once, and a plain file is read by several threads
    // (io/cut_source.hpp, docs/architecture.md "Cutting reads"). Batches in
    // flight: enough to keep every worker busy.
    host::OrderedPipeline<Batch> pipeline(2 * std::size_t(threads) + 2);
    pipeline.source([&](Batch& batch) {
      host::Stopwatch clock;
      const bool more = reads_.cut_first(batch.blocks, options_.batch_size, max_batch_bytes);
      batch.empty = false;
      batch.first_file_bytes = reads_.first_raw_bytes_read();
      stages.cut_mates1 += clock.lap();
      return more;
    });
    if (reads_.layout() == io::ReadLayout::two_files)
      pipeline.serial([&](Batch& batch) {
        host::Stopwatch clock;
        batch.empty = !reads_.cut_second(batch.blocks);
        stages.cut_mates2 += clock.lap();
      });
    pipeline.parallel(threads, [&](Batch& batch, unsigned w) {
      Worker& worker = workers[w];
      if (!worker.classifier) worker.classifier = engine_.make_classifier();
      parse_and_classify(batch, worker);
    });
    pipeline.run([&](Batch& batch) {
      if (batch.out.error) std::rethrow_exception(batch.out.error);
      host::Stopwatch clock;
      tsv_.write(batch.out.tsv);
      kraken_.write(batch.out.kraken);
      for (taxonomy::taxid_t taxid : batch.out.calls) counts_.add(taxid);
      summary_.reads += batch.out.calls.size();
      summary_.bases += batch.out.bases;
      counters_.reads.store(summary_.reads, std::memory_order_relaxed);
      counters_.first_file_bytes.store(batch.first_file_bytes, std::memory_order_relaxed);
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

    if (report_.enabled()) report_.write(report::kraken_report(db_.taxonomy, counts_));
    if (abundance_.enabled())
      abundance_.write(report::abundance_table(db_.taxonomy, counts_, options_.abundance_rank));
    for (OutputFile* out : {&tsv_, &kraken_, &report_, &abundance_}) out->close();
    summary_.classified = counts_.total() - counts_.unclassified;
    summary_.seconds = host::seconds_since(start);
    return summary_;
  }

 private:
  // A batch with bad input yields only its error: the sink reports it when it
  // reaches the batch, so the error reported is the first in input order
  // whatever the thread count.
  void parse_and_classify(Batch& batch, Worker& worker) const {
    BatchOutput& out = batch.out;
    out.tsv.clear();
    out.kraken.clear();
    out.calls.clear();
    out.bases = 0;
    out.error = nullptr;
    if (batch.empty) return;
    host::Stopwatch clock;
    const io::ParsedReads parsed =
        io::parse_read_blocks(reads_.layout(), batch.blocks, worker.mates1, worker.mates2);
    if (parsed.error) {
      out.error = parsed.error;
      return;
    }
    const std::size_t count = parsed.count;
    const bool paired = reads_.paired();
    worker.reads.clear();
    for (std::size_t i = 0; i < count; ++i)
      worker.reads.push_back(ReadView{worker.mates1[i].sequence,
                                      paired ? std::string_view(worker.mates2[i].sequence)
                                             : std::string_view()});
    worker.results.resize(count);
    worker.parse += clock.lap();
    worker.classifier->classify(worker.reads, worker.results);
    worker.classify += clock.lap();
    for (std::size_t i = 0; i < count; ++i) {
      const ReadResult& result = worker.results[i];
      report::ReadCall call;
      call.id = read_id(worker.mates1[i], paired);
      call.length1 = worker.reads[i].mate1.size();
      call.length2 = worker.reads[i].mate2.size();
      call.paired = paired;
      call.taxid = result.assignment.taxid;
      call.candidates = result.top;
      call.candidate_count = result.candidate_count;
      if (tsv_.enabled()) formatter_.append_tsv(out.tsv, call);
      if (kraken_.enabled()) formatter_.append_kraken(out.kraken, call);
      out.calls.push_back(call.taxid);
      out.bases += call.length1 + call.length2;
    }
    worker.format += clock.lap();
  }

  const db::Database& db_;
  const QueryOptions& options_;
  // The CPU engine when none was given (its Classifier validates the options;
  // a given engine validated them when it was made).
  std::unique_ptr<QueryEngine> own_engine_;
  const QueryEngine& engine_;
  report::ReadFormatter formatter_;
  io::ReadBlockCutter reads_;
  // Open from the start (as temporaries), so that a failed query removes
  // older files at every output path, not only at those written so far.
  OutputFile tsv_;
  OutputFile kraken_;
  OutputFile report_;
  OutputFile abundance_;
  report::TaxonCounts counts_;
  QuerySummary summary_;
  QueryCounters own_counters_;  // when the caller follows no progress
  QueryCounters& counters_;
};

}  // namespace

std::vector<output::NamedPath> query_outputs(const QueryOptions& options) {
  return {{"--output", options.output},
          {"--kraken-output", options.kraken_output},
          {"--report", options.report},
          {"--abundance", options.abundance}};
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
                       const QueryEngine* engine, QueryCounters* counters) {
  if (options.batch_size == 0) throw std::invalid_argument("--batch-size must be at least 1");
  check_query_paths(options, {});
  // Until the query has succeeded, a failure or an interrupt removes every
  // output file, new or old, also one already committed: a failed query
  // leaves none of its outputs behind, stale ones included.
  std::vector<output::RemoveOnFailure> outputs;
  for (const output::NamedPath& out : query_outputs(options))
    if (!out.path.empty() && out.path != "-")
      outputs.emplace_back(output::resolve_output(out.path, {}).path);
  const QuerySummary summary = QueryRun(db, options, engine, counters).run();
  for (output::RemoveOnFailure& out : outputs) out.keep();
  return summary;
}

}  // namespace metawarp::pipeline
