#include "pipeline/progress.hpp"

#include <cstdio>

namespace metawarp::pipeline {

ProgressReporter::ProgressReporter(bool quiet, std::function<std::string()> line,
                                   std::chrono::milliseconds interval) {
  if (quiet) return;
  stop_ = std::make_unique<host::Channel<int>>(1);
  thread_ = std::make_unique<host::ThreadGroup>();
  thread_->spawn([stop = stop_.get(), line = std::move(line), interval] {
    bool printed = false;
    for (int unused = 0; stop->pop_for(unused, interval) == host::Channel<int>::Got::timeout;) {
      std::fprintf(stderr, "\r%s\033[K", line().c_str());
      printed = true;
    }
    if (printed) std::fprintf(stderr, "\n");
  });
}

ProgressReporter::~ProgressReporter() {
  if (!thread_) return;
  stop_->close();
  try {
    thread_->join();
  } catch (...) {
    // A progress line that could not be made is no reason to fail the stage.
  }
}

}  // namespace metawarp::pipeline
