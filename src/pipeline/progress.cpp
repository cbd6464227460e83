#include "pipeline/progress.hpp"

#include <cstdio>

namespace metawarp::pipeline {

ProgressReporter::ProgressReporter(bool quiet, std::function<std::string()> line,
                                   std::chrono::milliseconds interval)
    : line_(std::move(line)), interval_(interval) {
  if (quiet) return;
  thread_ = std::thread([this] {
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, interval_, [this] { return stop_; })) {
      std::fprintf(stderr, "\r%s\033[K", line_().c_str());
      printed_ = true;
    }
  });
}

ProgressReporter::~ProgressReporter() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
  if (printed_) std::fprintf(stderr, "\n");
}

}  // namespace metawarp::pipeline
