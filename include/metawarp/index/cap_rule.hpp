#pragma once
// The cap rule of the database (docs/database-format.md, part of the format):
// which of a feature's locations the database keeps. Written once, called by
// the CPU finalize (src/db/finalize.cpp) and the GPU one (kernels/finalize.cu).
#include <cstdint>

#include "metawarp/config.hpp"

namespace metawarp::index {

struct CapRule {
  // At most this many locations per feature: the smallest (target, window) pairs.
  std::uint32_t max_locations = 254;
  // Features that had more distinct locations than that are dropped entirely.
  bool remove_overpopulated = false;
};

// How many of a feature's `distinct` locations (distinct (target, window)
// pairs, before capping) it keeps: its smallest ones, this many.
METAWARP_HD_INLINE std::uint64_t kept_locations(std::uint64_t distinct, CapRule rule) {
  if (rule.remove_overpopulated && distinct > rule.max_locations) return 0;
  return distinct < rule.max_locations ? distinct : rule.max_locations;
}

}  // namespace metawarp::index
