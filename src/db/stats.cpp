#include "db/stats.hpp"

#include <algorithm>

namespace metawarp::db {
namespace {

std::vector<LengthBucket> empty_histogram(std::uint64_t cap) {
  std::vector<LengthBucket> buckets;
  for (std::uint64_t lo = 1, hi = 1; lo < cap; lo = hi + 1, hi *= 2)
    buckets.push_back({lo, std::min(hi, cap - 1), 0});
  buckets.push_back({cap, LengthBucket::open_end, 0});
  return buckets;
}

}  // namespace

DatabaseStats compute_stats(const Database& db) {
  DatabaseStats s;
  s.targets = db.targets.size();
  for (const Target& t : db.targets) {
    s.unmapped_targets += t.taxid == taxonomy::no_taxon;
    s.total_bases += t.length;
    s.total_windows += t.windows;
  }
  s.taxonomy_nodes = db.taxonomy.nodes().size();
  s.taxonomy_merged = db.taxonomy.merged().size();

  const FeatureIndex& index = db.index;
  s.features = index.feature_count();
  s.locations = index.location_count();
  const std::uint64_t cap = std::max<std::uint64_t>(1, db.params.max_locations_per_feature);
  s.histogram = empty_histogram(cap);
  const auto& offsets = index.offsets();
  for (std::size_t i = 0; i < s.features; ++i) {
    const std::uint64_t length = offsets[i + 1] - offsets[i];
    s.longest_list = std::max(s.longest_list, length);
    s.features_at_cap += length == cap;
    if (length == 0) continue;  // finalize() never makes empty lists
    // Buckets are few (about log2(cap)); find the first whose end covers length.
    for (LengthBucket& b : s.histogram) {
      if (length <= b.max_length) {
        ++b.features;
        break;
      }
    }
  }
  s.mean_list_length = s.features ? double(s.locations) / double(s.features) : 0.0;
  s.index_bytes = index.features().size() * sizeof(feature_t) +
                  index.offsets().size() * sizeof(std::uint64_t) +
                  index.locations().size() * sizeof(Location);
  s.lookup_bytes = index.lookup_bytes();
  s.memory_bytes = s.index_bytes + s.lookup_bytes;
  return s;
}

}  // namespace metawarp::db
