#pragma once
// How many slots the GPU query's feature lookup has for `features` features:
// at most 80 % full, rounded up to the table's own shape (a prime number of
// probing windows of lookup_group_size slots, tables/probing.hpp), so that the
// count here is exactly the table's capacity. The device index allocates this
// (kernels/device_index.cuh: FeatureLookupTable, which checks the shape) and
// `info` / the shard planner count it, so it is written once, here.
#include <cstdint>

#include "metawarp/tables/probing.hpp"

namespace metawarp::index {

// Threads (and slots) per probing window of the feature lookup: a window of
// four 8-byte slots is one 32-byte sector, read by one coalesced load.
inline constexpr int lookup_group_size = 4;

// Slots per feature before the table's rounding: at most 80 % full.
constexpr std::uint64_t lookup_min_slots(std::uint64_t features) {
  return (features * 5 + 3) / 4;
}

constexpr std::uint64_t lookup_capacity(std::uint64_t features) {
  return tables::windows_for_capacity(lookup_min_slots(features), lookup_group_size) *
         lookup_group_size;
}

}  // namespace metawarp::index
