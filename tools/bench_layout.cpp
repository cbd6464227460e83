// What splitting a database over P parts costs under the two layouts of
// docs/scale-out.md, measured on a real database (the numbers that chose the
// layout):
//
//   bench_layout DATABASE [PARTS...]       (default parts: 1 2 4 8)
//
// by feature: P contiguous feature ranges, balanced by locations. Every
//   feature and every location is held once; the table reports the largest
//   part against the mean (balance).
// by target: P contiguous target ranges, balanced by windows. A feature is
//   held (a lookup entry and an offset) by every part that has one of its
//   locations; the table reports that replication, and the lookups a read
//   needs (every part looks up every feature of a read).
// Bytes are the GPU query's compact layout estimate: a lookup entry 8 bytes
// at load 0.8 plus a 4-byte offset per feature, 4 bytes per location.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "db/database.hpp"

namespace {

using namespace metawarp;

double part_bytes(std::uint64_t features, std::uint64_t locations) {
  return double(features) * (8.0 / 0.8 + 4.0) + double(locations) * 4.0;
}

// First feature position of each of `parts` parts of about equal locations.
std::vector<std::uint64_t> feature_cuts(const db::FeatureIndex& index, unsigned parts) {
  const auto& offsets = index.offsets();
  const std::uint64_t n = index.feature_count();
  std::vector<std::uint64_t> cuts{0};
  for (unsigned p = 1; p < parts; ++p) {
    const std::uint64_t want = index.location_count() * p / parts;
    cuts.push_back(std::uint64_t(std::lower_bound(offsets.begin(), offsets.begin() + n + 1, want) -
                                 offsets.begin()));
  }
  cuts.push_back(n);
  return cuts;
}

// Part of each target: contiguous target ranges of about equal windows.
std::vector<unsigned> target_parts(const db::Database& db, unsigned parts) {
  std::uint64_t total = 0;
  for (const auto& t : db.targets) total += t.windows;
  std::vector<unsigned> part(db.targets.size());
  std::uint64_t before = 0;
  for (std::size_t t = 0; t < db.targets.size(); ++t) {
    part[t] = total ? unsigned(std::min<std::uint64_t>(parts - 1, before * parts / total)) : 0;
    before += db.targets[t].windows;
  }
  return part;
}

void report(const db::Database& db, unsigned parts) {
  const db::FeatureIndex& index = db.index;
  const double features = double(index.feature_count());
  const double locations = double(index.location_count());

  const auto cuts = feature_cuts(index, parts);
  double largest = 0;
  for (unsigned p = 0; p < parts; ++p) {
    const std::uint64_t f = cuts[p + 1] - cuts[p];
    const std::uint64_t l = index.offsets()[cuts[p + 1]] - index.offsets()[cuts[p]];
    largest = std::max(largest, part_bytes(f, l));
  }
  const double whole = part_bytes(index.feature_count(), index.location_count());

  const auto part_of = target_parts(db, parts);
  std::vector<std::uint64_t> entries(parts, 0), locs(parts, 0);
  std::vector<std::uint32_t> seen(parts, 0);
  for (std::uint64_t f = 0; f < index.feature_count(); ++f) {
    const std::uint32_t stamp = std::uint32_t(f + 1);
    for (std::uint64_t i = index.offsets()[f]; i < index.offsets()[f + 1]; ++i) {
      const unsigned p = part_of[index.locations()[i].target];
      ++locs[p];
      if (seen[p] != stamp) {
        seen[p] = stamp;
        ++entries[p];
      }
    }
  }
  std::uint64_t replicated = 0;
  double largest_t = 0, total_t = 0;
  for (unsigned p = 0; p < parts; ++p) {
    replicated += entries[p];
    largest_t = std::max(largest_t, part_bytes(entries[p], locs[p]));
    total_t += part_bytes(entries[p], locs[p]);
  }
  std::printf("%5u | %12.3f | %10.3f | %14.3f | %12.3f | %10.3f | %u\n", parts,
              largest / 1e9, largest / (whole / parts), double(replicated) / features,
              largest_t / 1e9, total_t / whole, parts);
  (void)locations;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_layout DATABASE [PARTS...]\n");
    return 2;
  }
  try {
    const db::Database db = db::load(argv[1]);
    std::vector<unsigned> parts;
    for (int i = 2; i < argc; ++i) parts.push_back(unsigned(std::max(1, std::atoi(argv[i]))));
    if (parts.empty()) parts = {1, 2, 4, 8};
    std::uint64_t bases = 0;
    for (const auto& t : db.targets) bases += t.length;
    std::printf("database %s: %zu targets, %.3f Gbp, %llu features, %llu locations, "
                "%.3f GB in the compact layout (%.3f GiB per Gbp)\n",
                argv[1], db.targets.size(), double(bases) / 1e9,
                (unsigned long long)db.index.feature_count(),
                (unsigned long long)db.index.location_count(),
                part_bytes(db.index.feature_count(), db.index.location_count()) / 1e9,
                part_bytes(db.index.feature_count(), db.index.location_count()) /
                    (1024.0 * 1024.0 * 1024.0) / (double(bases) / 1e9));
    std::printf("parts | by feature:  | by feature: | by target:     | by target:   | by target: | "
                "lookups per\n"
                "      | largest GB   | largest/mean | feature copies | largest GB   | total/whole | "
                "read feature\n");
    for (unsigned p : parts) report(db, p);
    std::printf("(by feature: each feature is looked up once, on its owner; by target: on every "
                "part)\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_layout: %s\n", e.what());
    return 1;
  }
  return 0;
}
