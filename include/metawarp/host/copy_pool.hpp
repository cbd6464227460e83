#pragma once
// Byte copies on threads of their own. A thread that must decide in order
// where large buffers go (the build's driver hands every target over in
// target-id order, and each is packed into a pinned GPU batch) would copy
// them at one core's memory bandwidth; it queues the copies here and goes on
// deciding. Copies are grouped (a batch's pieces) and waited for together;
// the source of a copy is kept alive by the copy (a shared owner), so the
// caller may drop it at once; the last copy out frees it, off the caller's
// thread too (the free of a large buffer is an munmap).
//
// With 0 threads every copy runs on the caller, at once: the same bytes in
// the same places, on a machine with no cores to spare.
#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>

#include "metawarp/config.hpp"
#include "metawarp/host/channel.hpp"
#include "metawarp/host/thread_group.hpp"

namespace metawarp::host {

// Copies waited for together: wait() returns once every copy queued into the
// group so far is done. Destroying a group waits for its copies first (a copy
// thread still finishing one would otherwise touch a group that is gone).
class CopyGroup {
 public:
  CopyGroup() = default;
  ~CopyGroup() { wait(); }
  CopyGroup(const CopyGroup&) = delete;
  CopyGroup& operator=(const CopyGroup&) = delete;

  void wait() {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return pending_ == 0; });
  }

 private:
  friend class CopyPool;
  void add() {
    std::lock_guard lock(mutex_);
    ++pending_;
  }
  void finish() {
    std::lock_guard lock(mutex_);
    if (--pending_ == 0) done_.notify_all();
  }

  std::mutex mutex_;
  std::condition_variable done_;
  std::uint64_t pending_ = 0;
};

class CopyPool {
 public:
  // Copies longer than `piece_bytes` are cut into pieces of that size, so
  // that one long source spreads over the threads.
  explicit CopyPool(unsigned threads, std::size_t piece_bytes = std::size_t(4) << 20)
      : jobs_(std::size_t(1) << 16),
        piece_bytes_(std::max<std::size_t>(1, piece_bytes)),
        threads_count_(threads) {
    threads_.on_stop([this] { jobs_.cancel(); });
    for (unsigned t = 0; t < threads; ++t)
      threads_.spawn([this] {
        Job job;
        while (jobs_.pop(job)) run(job);
      });
  }
  // Every copy queued is done first: no group is left waiting.
  ~CopyPool() {
    jobs_.close();
    try {
      threads_.join();
    } catch (...) {
    }
  }
  CopyPool(const CopyPool&) = delete;
  CopyPool& operator=(const CopyPool&) = delete;

  unsigned threads() const { return threads_count_; }

  // Copies `bytes` bytes from `from` (inside what `owner` keeps alive) to
  // `to`, counted in `group`. `to` must stay valid until group.wait().
  void copy(CopyGroup& group, const std::shared_ptr<const void>& owner, const void* from, void* to,
            std::size_t bytes) {
    const auto* src = static_cast<const char*>(from);
    auto* dst = static_cast<char*>(to);
    if (threads_count_ == 0) {
      std::memcpy(dst, src, bytes);
      return;
    }
    for (std::size_t at = 0; at < bytes; at += piece_bytes_) {
      group.add();
      const std::size_t n = std::min(piece_bytes_, bytes - at);
      // A job the channel refuses (closed) or drops (cancelled) is destroyed
      // without running, and still counts itself done in its group.
      jobs_.push(Job{owner, src + at, dst + at, n, Counted(&group)});
    }
  }

 private:
  // A job's place in its group: done when the job runs, or when a job that
  // never ran is destroyed, so that no group waits forever.
  struct Done {
    void operator()(CopyGroup* group) const { group->finish(); }
  };
  using Counted = std::unique_ptr<CopyGroup, Done>;

  struct Job {
    std::shared_ptr<const void> owner;
    const char* from = nullptr;
    char* to = nullptr;
    std::size_t bytes = 0;
    Counted group;
  };

  static void run(Job& job) {
    std::memcpy(job.to, job.from, job.bytes);
    job.owner.reset();  // the source's last copy frees it here, not on the caller
    job.group.reset();  // done in the group
  }

  Channel<Job> jobs_;
  std::size_t piece_bytes_;
  unsigned threads_count_ = 0;
  ThreadGroup threads_;  // last: joined before the channel goes
};

}  // namespace metawarp::host
