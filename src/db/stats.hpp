#pragma once
// Summary numbers of a database for `metawarp info`.
#include <cstdint>
#include <limits>
#include <vector>

#include "db/database.hpp"

namespace metawarp::db {

// Features whose location list length lies in [min_length, max_length].
struct LengthBucket {
  std::uint64_t min_length = 0;
  std::uint64_t max_length = 0;  // inclusive; open_end for the last (">= cap") bucket
  std::uint64_t features = 0;
  static constexpr std::uint64_t open_end = std::numeric_limits<std::uint64_t>::max();
};

struct DatabaseStats {
  std::uint64_t targets = 0;
  std::uint64_t unmapped_targets = 0;  // taxid == no_taxon
  std::uint64_t total_bases = 0;
  std::uint64_t total_windows = 0;
  std::uint64_t taxonomy_nodes = 0;
  std::uint64_t taxonomy_merged = 0;
  std::uint64_t features = 0;
  std::uint64_t locations = 0;
  std::uint64_t longest_list = 0;
  std::uint64_t features_at_cap = 0;  // lists of exactly max_locations_per_feature
  double mean_list_length = 0;
  // Location-list lengths: 1, 2, 3-4, 5-8, ... (powers of two, clipped below
  // the cap), then one bucket ">= cap". Empty buckets included, in order.
  std::vector<LengthBucket> histogram;
  std::uint64_t index_bytes = 0;   // features + offsets + locations arrays
  std::uint64_t lookup_bytes = 0;  // the hash lookup a CPU query builds
  std::uint64_t memory_bytes = 0;  // index + lookup (targets/taxonomy not counted)
};

DatabaseStats compute_stats(const Database& db);

}  // namespace metawarp::db
