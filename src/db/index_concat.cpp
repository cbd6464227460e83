#include "db/index_concat.hpp"

#include <algorithm>

#include "metawarp/host/parallel_for.hpp"

namespace metawarp::db {

namespace {

// Copies n elements with every core: the destination is fresh memory, whose
// first touch (the kernel zeroing each page) on one thread ran at a few GB/s
// and made this copy most of a multi-GPU build's finalize (8 s for the 10 Gbp
// set's 18 GB index on 2 and 4 GPUs).
template <class T, class Map>
void copy_parallel(const T* from, std::size_t n, T* to, Map map) {
  constexpr std::size_t min_part = std::size_t(16) << 20;  // elements per thread at least
  host::parallel_ranges(n, host::parts_for(n, min_part), [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) to[i] = map(from[i]);
  });
}

}  // namespace

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
    const auto same = [](auto x) { return x; };
    const std::uint64_t base = l;
    copy_parallel(part.features().data(), part.feature_count(), all_features.data() + f, same);
    copy_parallel(part.offsets().data(), part.feature_count(), all_offsets.data() + f,
                  [base](std::uint64_t offset) { return offset + base; });
    copy_parallel(part.locations().data(), part.location_count(), all_locations.data() + l, same);
    f += part.feature_count();
    l += part.location_count();
    part = FeatureIndex();  // freed
  }
  all_offsets[features] = locations;
  // The constructor checks that the features ascend across the parts.
  return FeatureIndex(std::move(all_features), std::move(all_offsets), std::move(all_locations));
}

}  // namespace metawarp::db
