#pragma once
// Throttled progress lines on stderr for long-running stages. A background
// thread prints every `interval` while the stage runs; nothing when quiet.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace metawarp::pipeline {

class ProgressReporter {
 public:
  // `line` is called from the reporter thread and returns the text to print.
  ProgressReporter(bool quiet, std::function<std::string()> line,
                   std::chrono::milliseconds interval = std::chrono::seconds(2));
  ~ProgressReporter();  // stops the thread and ends the line
  ProgressReporter(const ProgressReporter&) = delete;
  ProgressReporter& operator=(const ProgressReporter&) = delete;

 private:
  std::function<std::string()> line_;
  std::chrono::milliseconds interval_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool printed_ = false;
  std::thread thread_;
};

// Seconds since `start` as a double.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace metawarp::pipeline
