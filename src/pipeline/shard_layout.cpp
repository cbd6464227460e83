#include "pipeline/shard_layout.hpp"

#include <algorithm>
#include <stdexcept>

namespace metawarp::pipeline {
namespace {

constexpr std::size_t max_gpus = 64;

int parse_number(const std::string& item, const std::string& text) {
  if (item.empty() || item.size() > 6 ||
      !std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; }))
    throw std::invalid_argument("--gpus '" + text +
                                "': expected a number of GPUs (e.g. 4) or a comma-separated "
                                "list of CUDA device numbers (e.g. 0,2 or 3,)");
  return std::stoi(item);
}

}  // namespace

std::vector<int> parse_gpu_list(const std::string& text) {
  std::vector<int> devices;
  if (text.find(',') == std::string::npos) {
    const int count = parse_number(text, text);
    if (count == 0) throw std::invalid_argument("--gpus 0: at least one GPU is needed (or --device cpu)");
    if (std::size_t(count) > max_gpus)
      throw std::invalid_argument("--gpus " + text + ": at most " + std::to_string(max_gpus) + " GPUs");
    for (int d = 0; d < count; ++d) devices.push_back(d);
    return devices;
  }
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    start = comma + 1;
    if (item.empty() && comma == text.size() && !devices.empty()) break;  // "3,"
    const int device = parse_number(item, text);
    if (std::find(devices.begin(), devices.end(), device) != devices.end())
      throw std::invalid_argument("--gpus '" + text + "': device " + std::to_string(device) +
                                  " is named twice");
    devices.push_back(device);
    if (devices.size() > max_gpus)
      throw std::invalid_argument("--gpus '" + text + "': at most " + std::to_string(max_gpus) + " GPUs");
  }
  return devices;
}

ShardLayout mpi_rank_layout(const ShardLayout& layout, int local_rank) {
  const std::size_t n = layout.devices.size();
  return {{layout.devices[std::size_t(local_rank) % n]}, layout.shards_per_gpu};
}

std::vector<std::uint64_t> balanced_cuts(std::span<const std::uint64_t> offsets,
                                         std::uint64_t parts) {
  const std::uint64_t features = offsets.size() - 1;
  const std::uint64_t total = offsets[features] + features;  // the weight of everything
  std::vector<std::uint64_t> cut{0};
  for (std::uint64_t s = 1; s < parts; ++s) {
    const std::uint64_t goal = total / parts * s + total % parts * s / parts;
    // The first position whose weight (locations + features before it) reaches the goal.
    std::uint64_t lo = cut.back(), hi = features;
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (offsets[mid] + mid < goal) lo = mid + 1; else hi = mid;
    }
    cut.push_back(lo);
  }
  cut.push_back(features);
  return cut;
}

std::string describe(const ShardLayout& layout) {
  std::string out = layout.devices.size() == 1 ? "GPU " : "GPUs ";
  for (std::size_t i = 0; i < layout.devices.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(layout.devices[i]);
  }
  if (layout.shards_per_gpu > 1)
    out += " (" + std::to_string(layout.shards_per_gpu) + " shards each)";
  return out;
}

}  // namespace metawarp::pipeline
