#include "pipeline/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "metawarp/host/clock.hpp"

namespace metawarp::pipeline {

ProgressStyle progress_style(bool quiet) {
  if (quiet) return ProgressStyle::off;
  return isatty(STDERR_FILENO) ? ProgressStyle::refreshed_line : ProgressStyle::plain_lines;
}

ProgressReporter::ProgressReporter(ProgressStyle style, std::function<std::string()> line) {
  if (style == ProgressStyle::off) return;
  stop_ = std::make_unique<host::Channel<int>>(1);
  thread_ = std::make_unique<host::ThreadGroup>();
  thread_->spawn([stop = stop_.get(), line = std::move(line), style] {
    const bool refreshed = style == ProgressStyle::refreshed_line;
    const auto interval = refreshed ? refresh_interval : plain_interval;
    bool printed = false;
    for (int unused = 0; stop->pop_for(unused, interval) == host::Channel<int>::Got::timeout;) {
      // \033[K clears what a longer earlier line left to the right.
      if (refreshed)
        std::fprintf(stderr, "\r%s\033[K", line().c_str());
      else
        std::fprintf(stderr, "%s\n", line().c_str());
      printed = true;
    }
    if (refreshed && printed) std::fprintf(stderr, "\r\033[K");
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

ProgressStep::ProgressStep(bool quiet, const std::string& what) {
  if (quiet) return;
  std::fprintf(stderr, "%s ... ", what.c_str());
  std::fflush(stderr);
  open_ = true;
}

ProgressStep::~ProgressStep() {
  if (open_) std::fprintf(stderr, "failed\n");
}

void ProgressStep::done(const std::string& detail) {
  if (!open_) return;
  std::fprintf(stderr, "done (%s)\n", detail.c_str());
  open_ = false;
}

double ProgressStep::seconds() const { return host::seconds_since(start_); }

namespace {
std::string printf_string(const char* format, double value, const char* unit) {
  char text[64];
  std::snprintf(text, sizeof text, format, value, unit);
  return text;
}

// Three significant digits at most: "950", "12.3", "1.23".
std::string scaled(double value, double unit, const char* suffix) {
  const double v = value / unit;
  const char* format = v >= 100 ? "%.0f%s" : v >= 10 ? "%.1f%s" : "%.2f%s";
  return printf_string(format, v, suffix);
}
}  // namespace

std::string format_bytes(std::uint64_t bytes) {
  const double b = double(bytes);
  if (b < 1e3) return printf_string("%.0f%s", b, " B");
  if (b < 1e6) return scaled(b, 1e3, " kB");
  if (b < 1e9) return scaled(b, 1e6, " MB");
  return scaled(b, 1e9, " GB");
}

std::string format_count(double count) {
  if (count < 1e3) return printf_string("%.0f%s", count, "");
  if (count < 1e6) return scaled(count, 1e3, " k");
  if (count < 1e9) return scaled(count, 1e6, " M");
  return scaled(count, 1e9, " G");
}

std::string format_seconds(double seconds) { return printf_string("%.2f%s", seconds, " s"); }

std::string format_duration(double seconds) {
  const long long s = std::llround(std::max(0.0, seconds));
  char text[64];
  if (s < 60)
    std::snprintf(text, sizeof text, "%lld s", s);
  else if (s < 3600)
    std::snprintf(text, sizeof text, "%lld min %02lld s", s / 60, s % 60);
  else
    std::snprintf(text, sizeof text, "%lld h %02lld min", s / 3600, (s % 3600) / 60);
  return text;
}

}  // namespace metawarp::pipeline
