#pragma once
// How many (feature, location) pairs a build will hold, worked out from the
// input files before any work: what the GPU table is sized by and how many
// partitions a memory limit needs.
#include <cstdint>
#include <string>
#include <vector>

#include "metawarp/index/feature_range.hpp"
#include "metawarp/index/feature_split.hpp"
#include "metawarp/sketch/types.hpp"

namespace metawarp::pipeline {

// The bytes of input the files hold once decompressed, estimated before they
// are read: gzip files are assumed to expand 5x (genomes compress about 3.5x
// with gzip); standard input and pipes, whose size is not known before they
// are read, count nothing. Also what --device auto weighs (cli/device_choice.hpp).
std::uint64_t estimate_input_bytes(const std::vector<std::string>& files);
// Upper estimate of the pairs of all features: every window of the
// estimated input holds at most window_features_bound.
std::uint64_t estimate_pairs(const std::vector<std::string>& files, const sketch::SketchParams& p);

// The features a window is expected to hold at most: s for minhash windows;
// with content-defined sampling its expected sampled k-mers and 25 % more
// (genomes are not random sequence: repeats sample fewer, some regions more),
// at most s.
std::uint64_t window_features_bound(const sketch::SketchParams& p);

// The distribution of features these parameters produce (feature_split.hpp).
inline index::FeatureDistribution feature_distribution(const sketch::SketchParams& p) {
  return index::FeatureDistribution{p.stride(), p.sketch_size, p.sampling};
}

// The pairs expected in `range` out of `total` over all features, with room
// for chance and for sequences less random than uniform hashes: 5 % more and
// at least a million (a small part must not fail for a few pairs more).
std::uint64_t pairs_in_range(std::uint64_t total, index::FeatureRange range,
                             const sketch::SketchParams& p);

}  // namespace metawarp::pipeline
