#pragma once
// How many slots the GPU query's feature lookup has for `features` features:
// at most 80 % full, at least one empty slot (linear probing stops there), any
// count (no power of two: the start slot is a multiply-high range reduction of
// the hash). The device index allocates this and `info` / the shard planner
// count it, so it is written once, here.
#include <cstdint>

namespace metawarp::index {

constexpr std::uint64_t lookup_capacity(std::uint64_t features) {
  const std::uint64_t slots = (features * 5 + 3) / 4;
  return slots > features ? slots : features + 1;
}

}  // namespace metawarp::index
