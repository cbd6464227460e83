// The CPU build executor: each target's windows are cut into tasks and
// sketched by a pool of workers (so one huge genome is sketched in parallel
// too), each worker keeping its own entries; finalize sorts everything, so the
// database does not depend on which worker sketched what.
#include <algorithm>
#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>

#include "metawarp/host/channel.hpp"
#include "metawarp/host/thread_group.hpp"
#include "metawarp/sketch/host.hpp"
#include "metawarp/sketch/sketch.hpp"
#include "pipeline/build/build_executor.hpp"
#include "pipeline/build/sharded_build_executor.hpp"

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

// Sketches the task's windows, keeping the features inside `range`; returns
// how many entries it kept.
std::uint64_t run_task(const SketchTask& task, const sketch::SketchParams& p,
                       index::FeatureRange range, EntryStore& store) {
  std::vector<db::Entry>& out = store.room_for(task.count * p.sketch_size);
  const std::size_t before = out.size();
  feature_t features[sketch::max_sketch_size];
  const std::string& seq = *task.sequence;
  for (std::uint64_t w = task.first_window; w < task.first_window + task.count; ++w) {
    const std::uint32_t n = sketch::host_sketch_window(seq.data(), seq.size(), w, p, features);
    for (std::uint32_t i = 0; i < n; ++i)
      if (range.contains(features[i]))
        out.push_back(db::Entry{features[i], Location{task.target, sketch::window_id_t(w)}});
  }
  return out.size() - before;
}

class CpuBuildExecutor final : public BuildExecutor {
 public:
  explicit CpuBuildExecutor(const BuildOptions& options)
      : params_(options.params),
        range_(options.features),
        max_entries_(options.partition_bytes / host_bytes_per_pair),
        threads_(std::max(1u, options.threads)),
        tasks_(max_queued_tasks),
        entries_(threads_) {
    if (options.partition_bytes != 0 && max_entries_ == 0)
      throw std::invalid_argument("--partition-size " + std::to_string(options.partition_bytes) +
                                  " holds no (feature, location) pair (" +
                                  std::to_string(host_bytes_per_pair) + " bytes each)");
    workers_.on_stop([this] { tasks_.cancel(); });
    for (unsigned t = 0; t < threads_; ++t)
      workers_.spawn([this, t] {
        SketchTask task;
        while (tasks_.pop(task)) {
          const std::uint64_t kept = run_task(task, params_.sketch, range_, entries_[t]);
          check_limit(entries_kept_.fetch_add(kept) + kept);
        }
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

  BuiltIndex finalize() override {
    std::vector<db::EntryChunks> parts;
    for (auto& store : entries_) parts.push_back(store.take());
    return db::finalize_chunks(std::move(parts), params_, threads_);
  }

 private:
  // A part beyond --partition-size stops the build at once (the workers'
  // error cancels the queue; add() rethrows it) instead of exhausting memory.
  void check_limit(std::uint64_t entries) const {
    if (max_entries_ != 0 && entries > max_entries_)
      throw PartitionTooLarge("its features hold more than " + std::to_string(max_entries_) +
                              " (feature, location) pairs, which at " +
                              std::to_string(host_bytes_per_pair) +
                              " bytes each is more than the --partition-size");
  }

  const db::DatabaseParams params_;
  const index::FeatureRange range_;
  const std::uint64_t max_entries_;  // 0: no limit
  std::atomic<std::uint64_t> entries_kept_{0};
  const unsigned threads_;
  host::Channel<SketchTask> tasks_;
  std::vector<EntryStore> entries_;  // one per worker
  host::ThreadGroup workers_;        // last: stopped and joined first
};

}  // namespace

std::unique_ptr<BuildExecutor> make_cpu_build_executor(const BuildOptions& options,
                                                       const BuildInputs& inputs) {
  if (options.cpu_shards <= 1) return std::make_unique<CpuBuildExecutor>(options);
  // Each shard sketches every target (replicated sketching): the threads are
  // divided among them.
  return make_sharded_build_executor(
      options, inputs, options.cpu_shards,
      [shards = options.cpu_shards](BuildOptions shard, const BuildInputs&, unsigned) {
        shard.threads = std::max(1u, shard.threads / shards);
        shard.cpu_shards = 1;
        if (shard.partition_bytes != 0)  // the host's memory is shared by the shards
          shard.partition_bytes = std::max(host_bytes_per_pair, shard.partition_bytes / shards);
        return std::unique_ptr<BuildExecutor>(std::make_unique<CpuBuildExecutor>(shard));
      });
}

}  // namespace metawarp::pipeline
