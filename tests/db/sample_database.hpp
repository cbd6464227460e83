#pragma once
// A small database of every kind of content (names with odd bytes, an
// unmapped target, merged ids, capped features), the same for the same seed:
// for the file format tests and the database fuzzer's seeds.
#include <random>
#include <string>
#include <vector>

#include "db/database.hpp"
#include "metawarp/sketch/sketch.hpp"

namespace metawarp::db::test {

// `locations`: how many random (feature, location) entries go into finalize (before the cap).
inline Database make_database(std::uint64_t seed, int locations = 20000) {
  std::mt19937_64 rng(seed);
  Database db;
  db.params.sketch = sketch::SketchParams{21, 150, 32};
  db.params.max_locations_per_feature = 9;
  db.params.remove_overpopulated_features = true;
  const char* names[] = {"NC_000913.3", "", "seq with \xc3\xa9 bytes", "x"};
  for (std::uint32_t t = 0; t < 4; ++t) {
    Target target;
    target.name = names[t];
    target.accession = t == 1 ? "" : "ACC" + std::to_string(t) + ".1";
    target.taxid = t == 3 ? taxonomy::no_taxon : 562 + t;
    target.length = 1000 + 777 * t;
    target.windows = std::uint32_t(sketch::window_count(target.length, db.params.sketch));
    target.source_file = "refs/genome" + std::to_string(t) + ".fna.gz";
    db.targets.push_back(target);
  }
  using taxonomy::Rank;
  db.taxonomy = taxonomy::Taxonomy::from_nodes(
      {{1, 1, Rank::root, "root"},
       {2, 1, Rank::superkingdom, "Bacteria"},
       {561, 2, Rank::genus, "Escherichia"},
       {562, 561, Rank::species, "Escherichia coli"},
       {563, 561, Rank::species, "Escherichia sp."},
       {564, 562, Rank::strain, "E. coli K-12"}},
      {{469598, 562}});
  std::vector<Entry> entries;
  for (int i = 0; i < locations; ++i) {
    const std::uint32_t t = std::uint32_t(rng() % db.targets.size());
    entries.push_back(Entry{feature_t(rng() % 3000),
                            Location{t, std::uint32_t(rng() % db.targets[t].windows)}});
  }
  db.index = finalize(std::move(entries), db.params, 2);
  return db;
}

}  // namespace metawarp::db::test
