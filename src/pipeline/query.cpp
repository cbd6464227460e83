#include "pipeline/query.hpp"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>

#include "io/paired_reader.hpp"
#include "io/sequence_reader.hpp"
#include "pipeline/query_output.hpp"
#include "report/abundance.hpp"
#include "report/kraken_report.hpp"
#include "report/per_read.hpp"
#include "report/taxon_counts.hpp"

namespace metawarp::pipeline {

namespace {

// A batch never holds more than this many bases (long reads), whatever the
// batch size, so memory stays bounded.
constexpr std::uint64_t max_batch_bases = std::uint64_t(64) << 20;

struct ReadInput {
  io::SequenceRecord mate1;
  io::SequenceRecord mate2;
};

struct Batch {
  std::size_t index = 0;
  std::vector<ReadInput> reads;
};

struct BatchOutput {
  std::string tsv;
  std::string kraken;
  std::vector<taxonomy::taxid_t> calls;  // taxid per read, for the report
  std::uint64_t bases = 0;
};

// Reads either single-end, interleaved or two-file input behind one call.
class ReadSource {
 public:
  explicit ReadSource(const QueryOptions& o) : paired_(o.reads.size() == 2 || o.interleaved) {
    if (o.reads.empty() || o.reads.size() > 2)
      throw std::invalid_argument("query needs one reads file (or two for pairs)");
    if (o.reads.size() == 2 && o.interleaved)
      throw std::invalid_argument("--interleaved takes one reads file, not two");
    if (o.reads.size() == 2) pairs_.emplace(o.reads[0], o.reads[1]);
    else if (o.interleaved) pairs_.emplace(o.reads[0]);
    else single_.emplace(o.reads[0]);
  }
  bool paired() const { return paired_; }

  // Fills batch.reads (reusing its records); false when nothing was left.
  bool next(Batch& batch, std::size_t max_reads) {
    std::size_t n = 0;
    std::uint64_t bases = 0;
    while (n < max_reads && bases < max_batch_bases) {
      if (batch.reads.size() <= n) batch.reads.emplace_back();
      ReadInput& r = batch.reads[n];
      const bool got = pairs_ ? pairs_->next(r.mate1, r.mate2) : single_->next(r.mate1);
      if (!got) break;
      if (!pairs_) r.mate2.sequence.clear();
      bases += r.mate1.sequence.size() + r.mate2.sequence.size();
      ++n;
    }
    batch.reads.resize(n);
    return n > 0;
  }

 private:
  bool paired_;
  std::optional<io::SequenceReader> single_;
  std::optional<io::PairedReader> pairs_;
};

// The fragment's id: mate 1's id without a trailing "/1".
std::string_view read_id(const ReadInput& r, bool paired) {
  std::string_view id = r.mate1.id();
  if (paired && id.size() > 2 && id[id.size() - 2] == '/' && id.back() == '1')
    id.remove_suffix(2);
  return id;
}

// The CPU batch classifier: the reference Classifier, read by read.
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

class QueryRun {
 public:
  QueryRun(const db::Database& db, const QueryOptions& o, const QueryEngine* engine)
      : db_(db),
        options_(o),
        classifier_(db, o.classifier),
        own_engine_(engine ? nullptr : make_cpu_query_engine(db, o.classifier)),
        engine_(engine ? *engine : *own_engine_),
        formatter_(db, o.top_hits),
        source_(o),
        tsv_(o.output),
        kraken_(o.kraken_output) {
    int to_stdout = 0;
    for (const std::string* path : {&o.output, &o.kraken_output, &o.report, &o.abundance})
      to_stdout += *path == "-";
    if (to_stdout > 1)
      throw std::invalid_argument("only one output can go to standard output ('-')");
    if (o.batch_size == 0) throw std::invalid_argument("--batch-size must be at least 1");
  }

  QuerySummary run() {
    const auto start = std::chrono::steady_clock::now();
    tsv_.write(formatter_.tsv_header());
    const unsigned workers = options_.threads == 0 ? 1 : options_.threads;
    // Batches read but not yet written: enough to keep every worker busy.
    max_in_flight_ = 2 * std::size_t(workers) + 2;

    std::vector<std::thread> threads;
    threads.emplace_back([this] { guarded([this] { read_loop(); }); });
    for (unsigned i = 0; i < workers; ++i)
      threads.emplace_back([this] { guarded([this] { work_loop(); }); });
    guarded([this] { write_loop(); });
    for (auto& t : threads) t.join();
    if (error_) std::rethrow_exception(error_);

    tsv_.close();
    kraken_.close();
    if (!options_.report.empty()) {
      OutputFile report(options_.report);
      report.write(report::kraken_report(db_.taxonomy, counts_));
      report.close();
    }
    if (!options_.abundance.empty()) {
      OutputFile table(options_.abundance);
      table.write(report::abundance_table(db_.taxonomy, counts_, options_.abundance_rank));
      table.close();
    }
    summary_.classified = counts_.total() - counts_.unclassified;
    summary_.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return summary_;
  }

 private:
  // Runs f; the first exception anywhere stops every thread and is rethrown.
  template <class F>
  void guarded(F f) {
    try {
      f();
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = std::current_exception();
      changed_.notify_all();
    }
  }

  void read_loop() {
    for (std::size_t index = 0;; ++index) {
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return error_ || index - next_write_ < max_in_flight_; });
        if (error_) return;
      }
      // A batch the workers are done with keeps its records' string
      // capacity, so refilling it allocates (nearly) nothing.
      Batch batch;
      {
        std::lock_guard lock(mutex_);
        if (!spare_.empty()) {
          batch = std::move(spare_.back());
          spare_.pop_back();
        }
      }
      batch.index = index;
      const bool more = source_.next(batch, options_.batch_size);
      std::lock_guard lock(mutex_);
      if (!more) {
        input_done_ = true;
        batches_ = index;
        changed_.notify_all();
        return;
      }
      pending_.push_back(std::move(batch));
      changed_.notify_all();
    }
  }

  void work_loop() {
    const std::unique_ptr<BatchClassifier> classifier = engine_.make_classifier();
    BatchScratch scratch;
    for (;;) {
      Batch batch;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return error_ || !pending_.empty() || input_done_; });
        if (error_ || pending_.empty()) return;
        batch = std::move(pending_.front());
        pending_.pop_front();
      }
      BatchOutput out = classify_batch(batch, *classifier, scratch);
      std::lock_guard lock(mutex_);
      done_.emplace(batch.index, std::move(out));
      spare_.push_back(std::move(batch));  // back to read_loop for reuse
      changed_.notify_all();
    }
  }

  // Per-worker buffers reused from batch to batch.
  struct BatchScratch {
    std::vector<ReadView> reads;
    std::vector<ReadResult> results;
  };

  BatchOutput classify_batch(const Batch& batch, BatchClassifier& classifier,
                             BatchScratch& scratch) const {
    BatchOutput out;
    out.calls.reserve(batch.reads.size());
    const bool paired = source_.paired();
    scratch.reads.clear();
    for (const ReadInput& r : batch.reads)
      scratch.reads.push_back(ReadView{r.mate1.sequence, r.mate2.sequence});
    scratch.results.resize(batch.reads.size());
    classifier.classify(scratch.reads, scratch.results);
    for (std::size_t i = 0; i < batch.reads.size(); ++i) {
      const ReadInput& r = batch.reads[i];
      const ReadResult& result = scratch.results[i];
      report::ReadCall call;
      call.id = read_id(r, paired);
      call.length1 = r.mate1.sequence.size();
      call.length2 = r.mate2.sequence.size();
      call.paired = paired;
      call.taxid = result.assignment.taxid;
      call.candidates = result.top;
      call.candidate_count = result.candidate_count;
      if (tsv_.enabled()) formatter_.append_tsv(out.tsv, call);
      if (kraken_.enabled()) formatter_.append_kraken(out.kraken, call);
      out.calls.push_back(call.taxid);
      out.bases += call.length1 + call.length2;
    }
    return out;
  }

  void write_loop() {
    for (std::size_t index = 0;; ++index) {
      BatchOutput out;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] {
          return error_ || done_.count(index) || (input_done_ && index >= batches_);
        });
        if (error_ || !done_.count(index)) return;
        auto it = done_.find(index);
        out = std::move(it->second);
        done_.erase(it);
      }
      tsv_.write(out.tsv);
      kraken_.write(out.kraken);
      for (taxonomy::taxid_t taxid : out.calls) counts_.add(taxid);
      summary_.reads += out.calls.size();
      summary_.bases += out.bases;
      std::lock_guard lock(mutex_);
      next_write_ = index + 1;
      changed_.notify_all();
    }
  }

  const db::Database& db_;
  const QueryOptions& options_;
  Classifier classifier_;  // validates the options up front, on every engine
  std::unique_ptr<QueryEngine> own_engine_;
  const QueryEngine& engine_;
  report::ReadFormatter formatter_;
  ReadSource source_;
  OutputFile tsv_;
  OutputFile kraken_;

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Batch> pending_;
  std::vector<Batch> spare_;  // classified batches, for read_loop to refill
  std::map<std::size_t, BatchOutput> done_;
  std::size_t next_write_ = 0;
  std::size_t max_in_flight_ = 4;
  std::size_t batches_ = 0;
  bool input_done_ = false;
  std::exception_ptr error_;

  report::TaxonCounts counts_;
  QuerySummary summary_;
};

}  // namespace

std::unique_ptr<QueryEngine> make_cpu_query_engine(const db::Database& db,
                                                   const ClassifierOptions& options) {
  return std::make_unique<CpuQueryEngine>(db, options);
}

QuerySummary run_query(const db::Database& db, const QueryOptions& options,
                       const QueryEngine* engine) {
  return QueryRun(db, options, engine).run();
}

}  // namespace metawarp::pipeline
