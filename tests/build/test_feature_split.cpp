// The split of the feature space into ranges of about equal entries
// (index/feature_split.hpp), on the features of random sequences.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "metawarp/index/feature_split.hpp"
#include "metawarp/sketch/host.hpp"
#include "metawarp/sketch/sketch.hpp"

using namespace metawarp;

namespace {

std::vector<sketch::feature_t> random_features(std::uint64_t seed, const sketch::SketchParams& p,
                                               std::size_t length) {
  std::mt19937_64 rng(seed);
  std::string seq(length, 'A');
  for (auto& c : seq) c = "ACGT"[rng() % 4];
  std::vector<sketch::feature_t> out;
  sketch::feature_t features[sketch::max_sketch_size];
  const std::uint64_t windows = sketch::window_count(seq.size(), p);
  for (std::uint64_t w = 0; w < windows; ++w) {
    const std::uint32_t n = sketch::host_sketch_window(seq.data(), seq.size(), w, p, features);
    out.insert(out.end(), features, features + n);
  }
  return out;
}

}  // namespace

TEST_CASE("the expected share of features below a value runs from 0 to 1, rising") {
  const index::FeatureDistribution d{112, 16};
  CHECK(d.share_below(0) == 0.0);
  CHECK(d.share_below(index::feature_space_end) == 1.0);
  double last = 0;
  for (std::uint64_t v = 1; v < index::feature_space_end; v += index::feature_space_end / 97) {
    const double share = d.share_below(v);
    CHECK(share >= last);
    last = share;
  }
  // Min-hashes crowd the low end: half of the entries lie far below 2^31.
  CHECK(d.value_at(0.5, {}) < index::feature_space_end / 8);
  // Windows keeping all their k-mers (s >= n) hold uniform features.
  const index::FeatureDistribution all{10, 16};
  CHECK(std::abs(all.share_below(index::feature_space_end / 4) - 0.25) < 1e-9);
}

TEST_CASE("split ranges cover the space in order and hold about equal entries") {
  using sketch::Sampling;
  for (const sketch::SketchParams p :
       {sketch::SketchParams{16, 127, 16}, sketch::SketchParams{21, 64, 8},
        sketch::SketchParams{12, 40, 32}, sketch::SketchParams{16, 127, 64, Sampling::scaled, 8},
        sketch::SketchParams{21, 127, 64, Sampling::minimizer, 12},
        sketch::SketchParams{16, 60, 64, Sampling::minimizer, 3}}) {
    const std::vector<sketch::feature_t> features = random_features(p.window, p, 3000000);
    const index::FeatureDistribution d{p.stride(), p.sketch_size, p.sampling};
    for (unsigned parts : {1u, 2u, 3u, 4u, 8u}) {
      CAPTURE(p.k, p.window, p.sketch_size, p.sampling_parameter, parts);
      const auto ranges = index::split_features({}, parts, d);
      REQUIRE(ranges.size() == parts);
      CHECK(ranges.front().begin == 0);
      CHECK(ranges.back().end == index::feature_space_end);
      for (std::size_t i = 1; i < ranges.size(); ++i) CHECK(ranges[i].begin == ranges[i - 1].end);
      const double mean = double(features.size()) / parts;
      for (const auto& range : ranges) {
        const auto in = std::count_if(features.begin(), features.end(),
                                      [&](sketch::feature_t f) { return range.contains(f); });
        CHECK(std::abs(double(in) - mean) <= 0.05 * mean);  // within 5 %
      }
      // A range split again (shards of a partition) stays balanced.
      const auto halves = index::split_features(ranges.front(), 2, d);
      CHECK(halves.front().begin == ranges.front().begin);
      CHECK(halves.back().end == ranges.front().end);
      const auto first = std::count_if(features.begin(), features.end(),
                                        [&](sketch::feature_t f) { return halves[0].contains(f); });
      CHECK(std::abs(double(first) - mean / 2) <= 0.06 * mean / 2);
    }
  }
}
