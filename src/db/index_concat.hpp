#pragma once
// The index of a database made in parts by feature range (GPU shards,
// partitions): the parts' arrays one after another, the list offsets rebased.
// Equal to the index built whole (include/metawarp/index/feature_range.hpp).
#include <vector>

#include "db/database.hpp"

namespace metawarp::db {

// `parts` in ascending feature order (each part's features above the
// previous ones'; else std::invalid_argument). Each part is freed as soon as
// it is copied.
FeatureIndex concatenate(std::vector<FeatureIndex> parts);

}  // namespace metawarp::db
