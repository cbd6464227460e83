#include "db/index_concat.hpp"

#include <algorithm>

namespace metawarp::db {

FeatureIndex concatenate(std::vector<FeatureIndex> parts) {
  if (parts.size() == 1) return std::move(parts.front());
  std::size_t features = 0, locations = 0;
  for (const FeatureIndex& part : parts) {
    features += part.feature_count();
    locations += part.location_count();
  }
  auto all_features = host::make_uninitialized_large_vector<feature_t>(features);
  auto all_offsets = host::make_uninitialized_large_vector<std::uint64_t>(features + 1);
  auto all_locations = host::make_uninitialized_large_vector<Location>(locations);
  std::size_t f = 0, l = 0;
  for (FeatureIndex& part : parts) {
    std::copy(part.features().begin(), part.features().end(), all_features.begin() + f);
    for (std::size_t i = 0; i < part.feature_count(); ++i)
      all_offsets[f + i] = part.offsets()[i] + l;
    std::copy(part.locations().begin(), part.locations().end(), all_locations.begin() + l);
    f += part.feature_count();
    l += part.location_count();
    part = FeatureIndex();  // freed
  }
  all_offsets[features] = locations;
  // The constructor checks that the features ascend across the parts.
  return FeatureIndex(std::move(all_features), std::move(all_offsets), std::move(all_locations));
}

}  // namespace metawarp::db
