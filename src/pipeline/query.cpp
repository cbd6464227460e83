#include "pipeline/query.hpp"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "io/read_blocks.hpp"
#include "io/sequence_reader.hpp"
#include "pipeline/progress.hpp"
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

// A batch is raw text: it goes from the reader thread to a worker, which
// parses it into its own records and classifies it, then back to the reader
// for reuse, so its buffers keep their capacity and refilling it allocates
// (nearly) nothing. Batches in flight hold only text, parsed records exist
// once per worker.
struct Batch {
  std::size_t index = 0;
  io::ReadBlocks blocks;
};

struct BatchOutput {
  std::string tsv;
  std::string kraken;
  std::vector<taxonomy::taxid_t> calls;  // taxid per read, for the report
  std::uint64_t bases = 0;
  // The batch's bad input: written out, in batch order, instead of its reads.
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

class QueryRun {
 public:
  QueryRun(const db::Database& db, const QueryOptions& o, const QueryEngine* engine)
      : db_(db),
        options_(o),
        own_engine_(engine ? nullptr : make_cpu_query_engine(db, o.classifier)),
        engine_(engine ? *engine : *own_engine_),
        formatter_(db, o.top_hits),
        reads_(open_reads(o)),
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
    summary_.stages.workers = workers;

    std::vector<std::thread> threads;
    threads.emplace_back([this] { guarded([this] { read_loop(); }); });
    if (two_files())
      threads.emplace_back([this] { guarded([this] { mates2_loop(); }); });
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

  bool two_files() const { return reads_.layout() == io::ReadLayout::two_files; }

  // With the mutex held: no batch follows the first `batches`.
  void end_input(std::size_t batches) {
    input_done_ = true;
    batches_ = batches;
    changed_.notify_all();
  }

  // Only cutting: the reader threads are the one serial stage, so they leave
  // the parsing to the workers. For two files this thread cuts mates 1 and
  // mates2_loop() mates 2, so the two files are read (and decompressed) at once.
  void read_loop() {
    for (std::size_t index = 0;; ++index) {
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] {
          return error_ || input_done_ || index - next_write_ < max_in_flight_;
        });
        if (error_ || input_done_) return;
      }
      Batch batch;
      {
        std::lock_guard lock(mutex_);
        if (!spare_.empty()) {
          batch = std::move(spare_.back());
          spare_.pop_back();
        }
      }
      batch.index = index;
      const auto cut_start = std::chrono::steady_clock::now();
      const bool more = reads_.cut_first(batch.blocks, options_.batch_size, max_batch_bytes);
      std::lock_guard lock(mutex_);
      summary_.stages.cut_mates1 += seconds_since(cut_start);
      if (!more) {
        if (!two_files()) end_input(index);
        mates1_done_ = true;
        mates1_batches_ = index;
        changed_.notify_all();
        return;
      }
      (two_files() ? mates2_queue_ : pending_).push_back(std::move(batch));
      changed_.notify_all();
    }
  }

  void mates2_loop() {
    for (;;) {
      Batch batch;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return error_ || !mates2_queue_.empty() || mates1_done_; });
        if (error_) return;
        if (mates2_queue_.empty()) {
          end_input(mates1_batches_);
          return;
        }
        batch = std::move(mates2_queue_.front());
        mates2_queue_.pop_front();
      }
      const auto cut_start = std::chrono::steady_clock::now();
      const bool more = reads_.cut_second(batch.blocks);
      std::lock_guard lock(mutex_);
      summary_.stages.cut_mates2 += seconds_since(cut_start);
      if (!more) {  // both files had ended
        end_input(batch.index);
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
        const auto wait_start = std::chrono::steady_clock::now();
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return error_ || !pending_.empty() || input_done_; });
        summary_.stages.worker_wait += seconds_since(wait_start);
        if (error_ || pending_.empty()) return;
        batch = std::move(pending_.front());
        pending_.pop_front();
      }
      QuerySummary::Stages times;
      BatchOutput out = parse_and_classify(batch, *classifier, scratch, times);
      std::lock_guard lock(mutex_);
      summary_.stages.parse += times.parse;
      summary_.stages.classify += times.classify;
      summary_.stages.format += times.format;
      done_.emplace(batch.index, std::move(out));
      spare_.push_back(std::move(batch));  // back to read_loop for reuse
      changed_.notify_all();
    }
  }

  // Per-worker buffers reused from batch to batch.
  struct BatchScratch {
    std::vector<io::SequenceRecord> mates1;  // parsed; entries past the batch's count are spare
    std::vector<io::SequenceRecord> mates2;  // unused for single-end reads
    std::vector<ReadView> reads;
    std::vector<ReadResult> results;
  };

  // A batch with bad input yields only its error: the writer reports it when
  // it reaches the batch, so the error reported is the first in input order
  // whatever the thread count.
  BatchOutput parse_and_classify(const Batch& batch, BatchClassifier& classifier,
                                 BatchScratch& scratch, QuerySummary::Stages& times) const {
    auto lap = [clock = std::chrono::steady_clock::now()]() mutable {
      const auto now = std::chrono::steady_clock::now();
      const double s = std::chrono::duration<double>(now - clock).count();
      clock = now;
      return s;
    };
    const io::ParsedReads parsed =
        io::parse_read_blocks(reads_.layout(), batch.blocks, scratch.mates1, scratch.mates2);
    BatchOutput out;
    if (parsed.error) {
      out.error = parsed.error;
      return out;
    }
    const std::size_t count = parsed.count;
    const bool paired = reads_.paired();
    out.calls.reserve(count);
    scratch.reads.clear();
    for (std::size_t i = 0; i < count; ++i)
      scratch.reads.push_back(ReadView{scratch.mates1[i].sequence,
                                       paired ? std::string_view(scratch.mates2[i].sequence)
                                              : std::string_view()});
    scratch.results.resize(count);
    times.parse = lap();
    classifier.classify(scratch.reads, scratch.results);
    times.classify = lap();
    for (std::size_t i = 0; i < count; ++i) {
      const ReadResult& result = scratch.results[i];
      report::ReadCall call;
      call.id = read_id(scratch.mates1[i], paired);
      call.length1 = scratch.reads[i].mate1.size();
      call.length2 = scratch.reads[i].mate2.size();
      call.paired = paired;
      call.taxid = result.assignment.taxid;
      call.candidates = result.top;
      call.candidate_count = result.candidate_count;
      if (tsv_.enabled()) formatter_.append_tsv(out.tsv, call);
      if (kraken_.enabled()) formatter_.append_kraken(out.kraken, call);
      out.calls.push_back(call.taxid);
      out.bases += call.length1 + call.length2;
    }
    times.format = lap();
    return out;
  }

  void write_loop() {
    for (std::size_t index = 0;; ++index) {
      BatchOutput out;
      {
        const auto wait_start = std::chrono::steady_clock::now();
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] {
          return error_ || done_.count(index) || (input_done_ && index >= batches_);
        });
        summary_.stages.writer_wait += seconds_since(wait_start);
        if (error_ || !done_.count(index)) return;
        auto it = done_.find(index);
        out = std::move(it->second);
        done_.erase(it);
      }
      if (out.error) std::rethrow_exception(out.error);
      const auto write_start = std::chrono::steady_clock::now();
      tsv_.write(out.tsv);
      kraken_.write(out.kraken);
      for (taxonomy::taxid_t taxid : out.calls) counts_.add(taxid);
      summary_.reads += out.calls.size();
      summary_.bases += out.bases;
      std::lock_guard lock(mutex_);
      summary_.stages.write += seconds_since(write_start);
      next_write_ = index + 1;
      changed_.notify_all();
    }
  }

  const db::Database& db_;
  const QueryOptions& options_;
  // The CPU engine when none was given (its Classifier validates the options;
  // a given engine validated them when it was made).
  std::unique_ptr<QueryEngine> own_engine_;
  const QueryEngine& engine_;
  report::ReadFormatter formatter_;
  io::ReadBlockCutter reads_;
  OutputFile tsv_;
  OutputFile kraken_;

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Batch> mates2_queue_;  // two files: mates 1 cut, mates 2 not yet
  bool mates1_done_ = false;        // read_loop has cut its last batch
  std::size_t mates1_batches_ = 0;  // and how many it cut
  std::deque<Batch> pending_;       // cut, waiting for a worker
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
