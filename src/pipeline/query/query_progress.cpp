#include "pipeline/query/query_progress.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "metawarp/host/clock.hpp"

namespace metawarp::pipeline {

namespace {
// The size of a regular file; none for "-", a pipe, a device or a path that
// cannot be examined (the line then says less, which is no error).
std::optional<std::uint64_t> regular_file_size(const std::string& path) {
  if (path == "-") return std::nullopt;
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) return std::nullopt;
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  if (error || size == 0) return std::nullopt;
  return size;
}

std::string display_name(const std::string& path) {
  if (path == "-") return "standard input";
  const std::string name = std::filesystem::path(path).filename().string();
  return name.empty() ? path : name;
}
}  // namespace

std::string query_progress_line(const std::string& label, bool paired,
                                const std::string& input_name, const QueryProgressState& state) {
  const char* noun = paired ? "pairs" : "reads";
  std::string line = label + ": " + format_count(double(state.reads)) + " " + noun;
  if (state.seconds > 0)
    line += ", " + format_count(double(state.reads) / state.seconds) + " " + noun + "/s";
  if (!state.input_size) return line;
  const double share = std::min(1.0, double(state.input_bytes) / double(*state.input_size));
  char percent[16];
  std::snprintf(percent, sizeof percent, "%.0f%%", 100.0 * share);
  line += std::string(", ") + percent + " of " + input_name;
  // Too early to tell below 0.1 %: the first batches are still being cut.
  if (share >= 0.001 && share < 1.0)
    line += ", ETA " + format_duration(state.seconds * (1.0 - share) / share);
  return line;
}

QueryProgress::QueryProgress(ProgressStyle style, std::string label, const QueryOptions& options)
    : reporter_(style, [this, label = std::move(label),
                        paired = options.reads.size() == 2 || options.interleaved,
                        name = display_name(options.reads.front()),
                        size = regular_file_size(options.reads.front()),
                        start = std::chrono::steady_clock::now()] {
        QueryProgressState state;
        state.reads = counters_.reads.load(std::memory_order_relaxed);
        state.input_bytes = counters_.first_file_bytes.load(std::memory_order_relaxed);
        state.input_size = size;
        state.seconds = host::seconds_since(start);
        return query_progress_line(label, paired, name, state);
      }) {}

}  // namespace metawarp::pipeline
