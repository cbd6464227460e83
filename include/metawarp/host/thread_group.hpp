#pragma once
// Threads that run tasks, with what every concurrent stage of metawarp needs
// from them: the first exception of any task is kept and rethrown by join();
// a failure wakes everything that waits (the stop callbacks cancel the
// channels the tasks block on); a thread that cannot start is an error naming
// the thread count, never a hang; the destructor stops and joins what still
// runs. Together with Channel (channel.hpp) this is the one place where
// metawarp's host threads are started, stopped and joined.
#include <exception>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "metawarp/config.hpp"

namespace metawarp::host {

class ThreadGroup {
 public:
  ThreadGroup() = default;
  // Stops the group and joins; an error not collected by join() is dropped
  // (the caller is already leaving by an exception of its own).
  ~ThreadGroup() {
    stop();
    join_all();
  }
  ThreadGroup(const ThreadGroup&) = delete;
  ThreadGroup& operator=(const ThreadGroup&) = delete;

  // `f` runs once when the group stops: on the first failure, on stop(), or
  // right away when the group has stopped already. Typically it cancels the
  // channels the tasks wait on, so that no task waits forever.
  void on_stop(std::function<void()> f) {
    {
      std::lock_guard lock(mutex_);
      if (!stopped_) {
        on_stop_.push_back(std::move(f));
        return;
      }
    }
    f();
  }

  // Runs task() on a new thread; an exception it throws fails the group.
  // Throws std::runtime_error when the system refuses another thread (after
  // stopping and joining the threads already started).
  template <class Task>
  void spawn(Task task) {
    try {
      threads_.emplace_back([this, task = std::move(task)]() mutable {
        try {
          task();
        } catch (...) {
          fail(std::current_exception());
        }
      });
    } catch (const std::exception& e) {
      const std::size_t started = threads_.size();
      stop();
      join_all();
      throw std::runtime_error("cannot start thread " + std::to_string(started + 1) + " (" +
                               e.what() + "): the system allows no more threads; use fewer "
                               "threads (--threads)");
    }
  }

  // Records `error` (the first one wins) and stops the group.
  void fail(std::exception_ptr error) {
    {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = std::move(error);
    }
    stop();
  }

  // Runs the stop callbacks, once.
  void stop() {
    std::vector<std::function<void()>> callbacks;
    {
      std::lock_guard lock(mutex_);
      if (stopped_) return;
      stopped_ = true;
      callbacks.swap(on_stop_);
    }
    for (auto& f : callbacks) f();
  }

  bool stopped() const {
    std::lock_guard lock(mutex_);
    return stopped_;
  }

  // Waits for every thread, then rethrows the first error of any task.
  void join() {
    join_all();
    std::exception_ptr error;
    {
      std::lock_guard lock(mutex_);
      error = std::exchange(error_, nullptr);
    }
    if (error) std::rethrow_exception(error);
  }

 private:
  void join_all() noexcept {
    for (auto& t : threads_)
      if (t.joinable()) t.join();
    threads_.clear();
  }

  std::vector<std::thread> threads_;
  mutable std::mutex mutex_;
  std::vector<std::function<void()>> on_stop_;
  bool stopped_ = false;
  std::exception_ptr error_;
};

}  // namespace metawarp::host
