#include "pipeline/build/build_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "io/decode/byte_format.hpp"

#include "metawarp/sketch/sampling.hpp"

namespace metawarp::pipeline {
namespace {

bool is_gzip(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char prefix[io::format_prefix_bytes];
  in.read(prefix, sizeof prefix);
  return io::detect_format(std::string_view(prefix, std::size_t(in.gcount()))) == io::ByteFormat::gzip;
}

}  // namespace

std::uint64_t estimate_input_bytes(const std::vector<std::string>& files) {
  std::uint64_t bases = 0;
  for (const auto& f : files) {
    // Only a regular file is measured: a pipe's bytes (stdin, a FIFO) would
    // be gone for the build that reads it, and its size is not known.
    std::error_code error;
    if (f == "-" || !std::filesystem::is_regular_file(f, error)) continue;
    const std::uint64_t size = std::filesystem::file_size(f);
    bases += is_gzip(f) ? size * 5 : size;
  }
  return bases;
}

std::uint64_t estimate_pairs(const std::vector<std::string>& files, const sketch::SketchParams& p) {
  const std::uint64_t bases = estimate_input_bytes(files);
  const std::uint64_t windows = bases / p.stride() + files.size() * 64 + 1024;
  return windows * window_features_bound(p);
}

std::uint64_t window_features_bound(const sketch::SketchParams& p) {
  if (p.sampling == sketch::Sampling::window) return p.sketch_size;
  const auto bound = std::uint64_t(std::ceil(1.25 * sketch::expected_window_features(p)));
  return std::min<std::uint64_t>(p.sketch_size, std::max<std::uint64_t>(1, bound));
}

std::uint64_t pairs_in_range(std::uint64_t total, index::FeatureRange range,
                             const sketch::SketchParams& p) {
  if (range.all()) return total;
  const double share = feature_distribution(p).share_of(range);
  const auto expected = std::uint64_t(double(total) * share * 1.05) + (std::uint64_t(1) << 20);
  return std::min(total, expected);
}

}  // namespace metawarp::pipeline
