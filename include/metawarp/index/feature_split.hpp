#pragma once
// Where to cut the feature space into ranges that hold about equal numbers of
// (feature, location) entries: the boundaries of GPU shards and of the
// partitions of a build larger than memory. The database never depends on
// the boundaries (it is the concatenation of its parts whatever they are),
// only the memory each part needs does.
//
// Features are min-hash values: a window keeps the s smallest of the hashes
// of its n = w - k + 1 k-mers, so they crowd the low end of [0, 2^32). For a
// feature value x (as a fraction of 2^32) the number of a window's n uniform
// hashes below x is Binomial(n, x), of which the window keeps at most s: the
// expected share of all entries below x is
//     E[min(s, Binomial(n, x))] / min(s, n),
// computed here numerically. Content-defined sampling (FracMinHash,
// minimizers) decides on one half of a k-mer's hash and keeps the other as
// the feature (sketch/hash.hpp): its features are uniform, the share is x.
// Host only.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "metawarp/index/feature_range.hpp"
#include "metawarp/sketch/types.hpp"

namespace metawarp::index {

// The distribution of the features of windows of `kmers_per_window` k-mers
// (the stride w - k + 1) keeping `sketch_size` each, sampled as `sampling`
// (the cap s of content-defined sampling, rarely reached, is not counted).
struct FeatureDistribution {
  std::uint32_t kmers_per_window = 112;  // n
  std::uint32_t sketch_size = 16;        // s
  sketch::Sampling sampling = sketch::Sampling::window;

  // The expected share of all entries whose feature is below `value`
  // (0 at 0, 1 at 2^32, non-decreasing).
  double share_below(std::uint64_t value) const {
    const double x = double(value) / double(feature_space_end);
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    if (sampling != sketch::Sampling::window) return x;
    const double all = kept_below(1);
    return all <= 0 ? 0.0 : std::clamp(kept_below(x) / all, 0.0, 1.0);
  }

  // The expected share of all entries whose feature lies in `range`.
  double share_of(FeatureRange range) const { return share_below(range.end) - share_below(range.begin); }

  // The smallest feature value v in [range.begin, range.end] with
  // share_below(v) >= share (bisection on integers: 33 steps).
  std::uint64_t value_at(double share, FeatureRange range) const {
    std::uint64_t lo = range.begin, hi = range.end;
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (share_below(mid) >= share) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

 private:
  // E[min(s, Binomial(n, x))]: the entries of a window below x (0 < x <= 1).
  double kept_below(double x) const {
    const double n = kmers_per_window;
    if (x >= 1) return std::min<double>(sketch_size, n);
    // E[min(s, X)] = s - sum_{j < s} (s - j) P(X = j), P in log space so
    // that large n and tiny x do not underflow the binomial terms.
    const std::uint32_t s = std::min(sketch_size, kmers_per_window);
    const double log_x = std::log(x), log_1mx = std::log1p(-x);
    double missing = 0;
    for (std::uint32_t j = 0; j < s; ++j) {
      const double log_p = std::lgamma(n + 1) - std::lgamma(j + 1.0) - std::lgamma(n - j + 1) +
                           j * log_x + (n - j) * log_1mx;
      missing += (s - j) * std::exp(log_p);
    }
    return s - missing;
  }
};

// `parts` contiguous ranges covering `whole` in ascending order, each with
// about the same expected number of entries (some may be empty when the
// whole range is tiny). parts >= 1.
inline std::vector<FeatureRange> split_features(FeatureRange whole, unsigned parts,
                                                const FeatureDistribution& distribution) {
  std::vector<FeatureRange> out;
  parts = std::max(1u, parts);
  const double first = distribution.share_below(whole.begin);
  const double last = distribution.share_below(whole.end);
  std::uint64_t begin = whole.begin;
  for (unsigned i = 1; i <= parts; ++i) {
    std::uint64_t end = whole.end;
    if (i < parts)
      end = std::clamp(distribution.value_at(first + (last - first) * i / parts, whole), begin,
                       whole.end);
    out.push_back(FeatureRange{begin, end});
    begin = end;
  }
  return out;
}

}  // namespace metawarp::index
