#pragma once
// Progress on stderr for long-running stages, in one of two styles chosen by
// where stderr goes: a terminal gets one line rewritten in place (\r) twice a
// second, anything else (a log file, a pipe) a plain line every few seconds,
// so a log holds readable lines rather than carriage returns. --quiet: none.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "metawarp/host/channel.hpp"
#include "metawarp/host/thread_group.hpp"

namespace metawarp::pipeline {

enum class ProgressStyle {
  off,             // --quiet
  refreshed_line,  // stderr is a terminal: one line, rewritten
  plain_lines,     // stderr is a file or a pipe: a line every plain_interval
};

// off when quiet, else by whether stderr is a terminal.
ProgressStyle progress_style(bool quiet);

// How often each style prints.
inline constexpr std::chrono::milliseconds refresh_interval{500};
inline constexpr std::chrono::milliseconds plain_interval{5000};

class ProgressReporter {
 public:
  // `line` is called from the reporter thread and returns the text to print
  // (without a line end). The first line comes one interval after the start,
  // so a stage shorter than that prints nothing.
  ProgressReporter(ProgressStyle style, std::function<std::string()> line);
  ProgressReporter(bool quiet, std::function<std::string()> line)
      : ProgressReporter(progress_style(quiet), std::move(line)) {}
  // Stops the thread; a refreshed line is erased, so what follows (a
  // summary, an error) starts on a clean line.
  ~ProgressReporter();
  ProgressReporter(ProgressReporter&&) = default;

 private:
  // Closed when the stage ends; the thread waits on it between lines.
  std::unique_ptr<host::Channel<int>> stop_;
  std::unique_ptr<host::ThreadGroup> thread_;
};

// A step reported as "<what> ... done (<detail>)" on one line: "<what> ... "
// when it starts, so a long step is visible while it runs, the rest when it
// ends. A step left without done() (an exception) ends its line with
// "failed", so the error message that follows starts on a line of its own.
// Nothing at all when quiet.
class ProgressStep {
 public:
  ProgressStep(bool quiet, const std::string& what);
  ~ProgressStep();
  ProgressStep(const ProgressStep&) = delete;
  ProgressStep& operator=(const ProgressStep&) = delete;

  void done(const std::string& detail);
  double seconds() const;  // since the step started

 private:
  bool open_ = false;  // printed "<what> ... " and not ended yet
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// Text for progress lines: "950 kB", "12.3 MB", "1.23 GB" (decimal units).
std::string format_bytes(std::uint64_t bytes);
// "950", "12.3 k", "1.23 M".
std::string format_count(double count);
// A measured time: "0.85 s".
std::string format_seconds(double seconds);
// A remaining time: "8 s", "4 min 05 s", "2 h 07 min".
std::string format_duration(double seconds);

}  // namespace metawarp::pipeline
