#pragma once
// A database's reference bases: the sum of its targets' lengths. The
// matched-bases rule's G (every query path must use the same number), a
// build's summary and profile-db's workload estimate.
#include <cstdint>
#include <span>

#include "db/database.hpp"

namespace metawarp::db {

inline std::uint64_t reference_bases(std::span<const Target> targets) {
  std::uint64_t bases = 0;
  for (const Target& t : targets) bases += t.length;
  return bases;
}

}  // namespace metawarp::db
