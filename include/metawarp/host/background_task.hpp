#pragma once
// One task at a time on a thread of its own, for a stage that overlaps the
// next one (a round of GPU sketching, a part of the database written while
// the next is built): start() waits for the previous task first, wait()
// rethrows a task's failure; the destructor joins a task still running (its
// failure dropped: the owner is leaving by an exception of its own).
#include <functional>
#include <optional>
#include <utility>

#include "metawarp/host/thread_group.hpp"

namespace metawarp::host {

class BackgroundTask {
 public:
  void start(std::function<void()> task) {
    wait();
    group_.emplace();
    group_->spawn(std::move(task));
  }
  void wait() {
    if (!group_) return;
    try {
      group_->join();
    } catch (...) {
      group_.reset();
      throw;
    }
    group_.reset();
  }

 private:
  std::optional<ThreadGroup> group_;  // its destructor joins a task still running
};

}  // namespace metawarp::host
