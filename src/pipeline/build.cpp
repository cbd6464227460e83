// The CPU build executor: records arrive in target-id order from the ordered
// reader; their windows are sketched by a pool of workers in chunks (so one
// huge genome is sketched in parallel too); finalize sorts everything, so the
// database does not depend on which worker sketched what.
#include "pipeline/build.hpp"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "metawarp/sketch/host.hpp"
#include "metawarp/sketch/sketch.hpp"
#include "pipeline/build_steps.hpp"

namespace metawarp::pipeline {
namespace {

using sketch::feature_t;
using sketch::Location;

// Windows [first, first+count) of one target.
struct SketchTask {
  std::shared_ptr<const std::string> sequence;
  sketch::target_id_t target;
  std::uint64_t first_window;
  std::uint64_t count;
};

constexpr std::uint64_t windows_per_task = 1u << 14;
constexpr std::size_t max_queued_tasks = 256;

// Entries per storage chunk of a worker: large, so that few allocations are
// made and nothing is ever reallocated and copied.
constexpr std::size_t entries_per_chunk = std::size_t(1) << 22;

// A worker's output: a list of arrays, each filled up to its reserved
// capacity and never moved (no reallocation copies, no page-fault churn);
// reserved pages that are never written are never touched.
class EntryStore {
 public:
  // The current chunk, with room for `n` more entries.
  std::vector<db::Entry>& room_for(std::size_t n) {
    if (chunks_.empty() || chunks_.back().capacity() - chunks_.back().size() < n) {
      chunks_.emplace_back();
      chunks_.back().reserve(std::max(n, entries_per_chunk));
    }
    return chunks_.back();
  }
  db::EntryChunks take() { return std::move(chunks_); }

 private:
  db::EntryChunks chunks_;
};

void run_task(const SketchTask& task, const sketch::SketchParams& p, EntryStore& store) {
  std::vector<db::Entry>& out = store.room_for(task.count * p.sketch_size);
  feature_t features[sketch::max_sketch_size];
  const std::string& seq = *task.sequence;
  for (std::uint64_t w = task.first_window; w < task.first_window + task.count; ++w) {
    const std::uint32_t n = sketch::host_sketch_window(seq.data(), seq.size(), w, p, features);
    for (std::uint32_t i = 0; i < n; ++i)
      out.push_back(db::Entry{features[i], Location{task.target, sketch::window_id_t(w)}});
  }
}

// A fixed pool of sketching workers fed through a bounded queue; each worker
// keeps its own entry store.
class SketchPool {
 public:
  SketchPool(unsigned workers, const sketch::SketchParams& params)
      : params_(params), entries_(workers) {
    for (unsigned t = 0; t < workers; ++t) threads_.emplace_back([this, t] { work(t); });
  }
  ~SketchPool() { close(); }

  void submit(SketchTask task) {
    std::unique_lock lock(mutex_);
    space_.wait(lock, [&] { return tasks_.size() < max_queued_tasks; });
    tasks_.push_back(std::move(task));
    ready_.notify_one();
  }

  // Waits for all tasks and returns every worker's entries (one part each).
  std::vector<db::EntryChunks> finish() {
    close();
    std::vector<db::EntryChunks> parts;
    for (auto& store : entries_) parts.push_back(store.take());
    return parts;
  }

 private:
  void close() {
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
    }
    ready_.notify_all();
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }

  void work(unsigned id) {
    for (;;) {
      SketchTask task;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return closed_ || !tasks_.empty(); });
        if (tasks_.empty()) return;
        task = std::move(tasks_.front());
        tasks_.pop_front();
        space_.notify_one();
      }
      run_task(task, params_, entries_[id]);
    }
  }

  const sketch::SketchParams params_;
  std::vector<EntryStore> entries_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable ready_, space_;
  std::deque<SketchTask> tasks_;
  bool closed_ = false;
};

}  // namespace

db::Database build_database(const BuildOptions& options, BuildSummary* summary) {
  const BuildInputs inputs = prepare_build(options);
  const auto& params = options.params.sketch;
  const unsigned threads = std::max(1u, options.threads);

  const auto start = std::chrono::steady_clock::now();
  ReadCounters counters;
  TargetCatalog catalog;
  std::vector<db::EntryChunks> entries;
  {
    auto progress = build_progress(options, counters, inputs.files.size());
    SketchPool pool(threads, params);
    for_each_record_in_order(inputs.files, threads, counters,
                             [&](io::SequenceRecord& record, std::size_t file) {
      const auto target = catalog.add(record, inputs.files[file], params);
      const std::uint64_t windows = catalog.targets.back().windows;
      auto sequence = std::make_shared<const std::string>(std::move(record.sequence));
      for (std::uint64_t w = 0; w < windows; w += windows_per_task)
        pool.submit(SketchTask{sequence, target, w, std::min(windows_per_task, windows - w)});
    });
    entries = pool.finish();
  }
  const double read_seconds = seconds_since(start);

  db::Database database;
  database.params = options.params;
  const auto finalize_start = std::chrono::steady_clock::now();
  database.index = db::finalize_chunks(std::move(entries), options.params, threads);
  const double finalize_seconds = seconds_since(finalize_start);
  complete_build(options, inputs, std::move(catalog), database, summary, counters);
  if (summary) {
    summary->seconds_read_sketch = read_seconds;
    summary->seconds_finalize = finalize_seconds;
  }
  return database;
}

}  // namespace metawarp::pipeline
