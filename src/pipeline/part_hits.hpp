#pragma once
// The seam of the partitioned query (partitioned_query.hpp): finding the hits
// of many reads in one part of the database at a time. The CPU collector
// looks the features up in the part's FeatureIndex; a GPU collector would
// upload the part and look them up on the device. Whatever finds them, the
// hits of a read over all parts are the hits the whole database gives it.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "db/database.hpp"
#include "db/partial_load.hpp"
#include "pipeline/classifier.hpp"

namespace metawarp::pipeline {

// The reads of a batch, sketched: read i's features are
// features[offsets[i], offsets[i + 1]), its shape shapes[i].
struct SketchedBatch {
  std::vector<sketch::feature_t> features;
  std::vector<std::uint64_t> offsets{0};  // reads + 1
  std::vector<ReadShape> shapes;
  std::size_t reads() const { return shapes.size(); }
};

// The hits of a batch's reads in one part: read i's are
// locations[offsets[i], offsets[i + 1]).
// list_sizes[i]: the locations of the batch's feature i (SketchedBatch::
// features[i]) in this part, 0 when the part does not hold it; a read's
// locations are its features' lists in feature order, so the sizes say whose
// each location is (the evidence column needs each feature's list).
struct PartHits {
  std::vector<sketch::Location> locations;
  std::vector<std::uint64_t> offsets{0};  // reads + 1
  std::vector<std::uint32_t> list_sizes;  // one per feature of the batch
  std::span<const sketch::Location> read(std::size_t i) const {
    return std::span(locations).subspan(offsets[i], offsets[i + 1] - offsets[i]);
  }
};

class PartHitCollector {
 public:
  virtual ~PartHitCollector() = default;
  // The part collect() looks in from now on; `part` (the part `where` of the
  // plan) stays valid until the next call.
  virtual void use_part(const db::FeatureIndex& part, const db::IndexPart& where) = 0;
  // out[b] = for each read of batches[b], the locations of its features in
  // the current part: every feature's whole list, a feature as often as the
  // read has it, in the read's feature order, and list_sizes.
  // out.size() == batches.size().
  virtual void collect(std::span<const SketchedBatch> batches, std::span<PartHits> out) = 0;
};

// Looks up in the part's FeatureIndex on `threads` threads (a batch each).
std::unique_ptr<PartHitCollector> make_cpu_hit_collector(unsigned threads);

}  // namespace metawarp::pipeline
