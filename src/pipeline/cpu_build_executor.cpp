// The CPU build executor: each target's windows are cut into tasks and
// sketched by a pool of workers (so one huge genome is sketched in parallel
// too), each worker keeping its own entries; finalize sorts everything, so the
// database does not depend on which worker sketched what.
#include <algorithm>
#include <memory>
#include <stdexcept>

#include "metawarp/host/channel.hpp"
#include "metawarp/host/thread_group.hpp"
#include "metawarp/sketch/host.hpp"
#include "metawarp/sketch/sketch.hpp"
#include "pipeline/build_executor.hpp"

namespace metawarp::pipeline {
namespace {

using sketch::feature_t;
using sketch::Location;

// Windows [first, first+count) of one target.
struct SketchTask {
  std::shared_ptr<const std::string> sequence;
  sketch::target_id_t target = 0;
  std::uint64_t first_window = 0;
  std::uint64_t count = 0;
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

class CpuBuildExecutor final : public BuildExecutor {
 public:
  explicit CpuBuildExecutor(const BuildOptions& options)
      : params_(options.params),
        threads_(std::max(1u, options.threads)),
        tasks_(max_queued_tasks),
        entries_(threads_) {
    workers_.on_stop([this] { tasks_.cancel(); });
    for (unsigned t = 0; t < threads_; ++t)
      workers_.spawn([this, t] {
        SketchTask task;
        while (tasks_.pop(task)) run_task(task, params_.sketch, entries_[t]);
      });
  }

  void add(TargetSequence target) override {
    auto sequence = std::make_shared<const std::string>(std::move(target.sequence));
    for (std::uint64_t w = 0; w < target.windows; w += windows_per_task) {
      const std::uint64_t count = std::min(windows_per_task, target.windows - w);
      if (!tasks_.push(SketchTask{sequence, target.target, w, count})) {
        workers_.join();  // rethrows the worker's error that cancelled the queue
        throw std::logic_error("the sketch workers stopped early");
      }
    }
  }

  void flush() override {
    tasks_.close();
    workers_.join();
  }

  db::FeatureIndex finalize() override {
    std::vector<db::EntryChunks> parts;
    for (auto& store : entries_) parts.push_back(store.take());
    return db::finalize_chunks(std::move(parts), params_, threads_);
  }

 private:
  const db::DatabaseParams params_;
  const unsigned threads_;
  host::Channel<SketchTask> tasks_;
  std::vector<EntryStore> entries_;  // one per worker
  host::ThreadGroup workers_;        // last: stopped and joined first
};

}  // namespace

std::unique_ptr<BuildExecutor> make_cpu_build_executor(const BuildOptions& options,
                                                       const BuildInputs&) {
  return std::make_unique<CpuBuildExecutor>(options);
}

}  // namespace metawarp::pipeline
