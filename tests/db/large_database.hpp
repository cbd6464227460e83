#pragma once
// A database whose index sections span several checksum chunks, for the
// tests of the parallel read and write and of the streaming GPU upload.
#include <random>

#include "db/database.hpp"
#include "sample_database.hpp"

namespace metawarp::db::test {

// A database whose index sections are several checksum chunks long in the
// file (format version 4: the locations, 4 bytes each, about 10.5 chunks, not
// a whole number; the counts, 1 byte each, just over one), from the sample
// database's targets and taxonomy.
inline Database large_database() {
  Database db = make_database(11, 100);
  std::mt19937_64 rng(12);
  const std::size_t features = 1100000;
  IndexArray<feature_t> f(features);
  IndexArray<std::uint64_t> offsets(features + 1);
  IndexArray<Location> locations;
  feature_t next = 0;
  for (std::size_t i = 0; i < features; ++i) {
    next += 1 + feature_t(rng() % 1000);
    f[i] = next;
    offsets[i] = locations.size();
    const std::uint32_t t = std::uint32_t(rng() % db.targets.size());
    for (std::uint64_t j = 0, n = 1 + rng() % 4; j < n; ++j)
      locations.push_back(Location{t, std::uint32_t(j)});  // every target has >= 4 windows
  }
  offsets[features] = locations.size();
  db.index = FeatureIndex(std::move(f), std::move(offsets), std::move(locations));
  return db;
}

}  // namespace metawarp::db::test
