#pragma once
// Throttled progress lines on stderr for long-running stages. A background
// thread prints every `interval` while the stage runs; nothing when quiet.
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "metawarp/host/channel.hpp"
#include "metawarp/host/thread_group.hpp"

namespace metawarp::pipeline {

class ProgressReporter {
 public:
  // `line` is called from the reporter thread and returns the text to print.
  ProgressReporter(bool quiet, std::function<std::string()> line,
                   std::chrono::milliseconds interval = std::chrono::seconds(2));
  ~ProgressReporter();  // stops the thread and ends the line
  ProgressReporter(ProgressReporter&&) = default;

 private:
  // Closed when the stage ends; the thread waits on it between lines.
  std::unique_ptr<host::Channel<int>> stop_;
  std::unique_ptr<host::ThreadGroup> thread_;
};

}  // namespace metawarp::pipeline
