#pragma once
// A bounded, closable, cancellable queue between threads: the one way
// metawarp's host threads hand work to each other. Bounded by the summed
// weight of its items (items by default, bytes where the caller says so), so
// a producer ahead of its consumer waits instead of filling memory.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <utility>

#include "metawarp/config.hpp"

namespace metawarp::host {

template <class T>
class Channel {
 public:
  explicit Channel(std::size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  // Waits for room, then appends. An item heavier than the whole capacity
  // still goes through, alone. False (the item is dropped) once the channel
  // is closed or cancelled.
  bool push(T item, std::size_t weight = 1) {
    std::unique_lock lock(mutex_);
    writable_.wait(lock, [&] {
      return cancelled_ || closed_ || used_ == 0 || used_ + weight <= capacity_;
    });
    if (cancelled_ || closed_) return false;
    used_ += weight;
    items_.emplace_back(std::move(item), weight);
    readable_.notify_one();
    return true;
  }

  // push() that never waits: false (the item is dropped) when there is no
  // room now, or once the channel is closed or cancelled. For what may be
  // dropped, such as buffers handed back for reuse.
  bool try_push(T item, std::size_t weight = 1) {
    std::lock_guard lock(mutex_);
    if (cancelled_ || closed_ || (used_ != 0 && used_ + weight > capacity_)) return false;
    used_ += weight;
    items_.emplace_back(std::move(item), weight);
    readable_.notify_one();
    return true;
  }

  // Waits for an item. False when the channel is closed and drained, or
  // cancelled (cancelled() tells which).
  bool pop(T& out) { return pop_until(out, std::chrono::steady_clock::time_point::max()) == Got::item; }

  enum class Got { item, end, timeout };
  // pop() that gives up after `timeout`.
  template <class Rep, class Period>
  Got pop_for(T& out, std::chrono::duration<Rep, Period> timeout) {
    return pop_until(out, std::chrono::steady_clock::now() + timeout);
  }

  // No more items: pops drain what is left, then return false.
  void close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    readable_.notify_all();
    writable_.notify_all();
  }
  // Everything returns false at once; items still queued are dropped.
  void cancel() {
    std::lock_guard lock(mutex_);
    cancelled_ = true;
    items_.clear();
    used_ = 0;
    readable_.notify_all();
    writable_.notify_all();
  }
  bool cancelled() const {
    std::lock_guard lock(mutex_);
    return cancelled_;
  }

 private:
  Got pop_until(T& out, std::chrono::steady_clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    const auto ready = [&] { return cancelled_ || closed_ || !items_.empty(); };
    if (deadline == std::chrono::steady_clock::time_point::max()) {
      readable_.wait(lock, ready);
    } else if (!readable_.wait_until(lock, deadline, ready)) {
      return Got::timeout;
    }
    if (cancelled_ || items_.empty()) return Got::end;
    out = std::move(items_.front().first);
    used_ -= items_.front().second;
    items_.pop_front();
    // All: with weights, the room one pop makes may let several pushers on.
    writable_.notify_all();
    return Got::item;
  }

  mutable std::mutex mutex_;
  std::condition_variable readable_, writable_;
  std::deque<std::pair<T, std::size_t>> items_;
  std::size_t used_ = 0;
  const std::size_t capacity_;
  bool closed_ = false;
  bool cancelled_ = false;
};

}  // namespace metawarp::host
