#pragma once
// Small databases built in a test: random DNA, and genomes sketched window
// by window into a Database with the classifier's own sketch function, under
// a tree of two genera written by hand; a fixture built once per test binary.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "db/database.hpp"
#include "metawarp/sketch/sketch.hpp"

namespace metawarp::test {

inline std::string random_dna(std::size_t n, std::mt19937& rng) {
  std::string s(n, 'A');
  for (char& c : s) c = "ACGT"[rng() % 4];
  return s;
}

// Targets "t0", "t1", ... with taxa[i] (no_taxon: unmapped) and db.index from
// every window sketch of every genome; db.taxonomy and db.params as given.
inline void sketch_targets(db::Database& db, const std::vector<std::string>& genomes,
                           const std::vector<taxonomy::taxid_t>& taxa) {
  std::vector<db::Entry> entries;
  sketch::feature_t features[sketch::max_sketch_size];
  for (std::uint32_t t = 0; t < genomes.size(); ++t) {
    const std::string& g = genomes[t];
    db::Target target;
    // Appended, not "t" + std::to_string(t): GCC 12 reports a false -Wrestrict for that.
    target.name = std::string("t").append(std::to_string(t));
    target.taxid = taxa[t];
    target.length = g.size();
    target.windows = std::uint32_t(sketch::window_count(g.size(), db.params.sketch));
    db.targets.push_back(target);
    for (std::uint32_t w = 0; w < target.windows; ++w) {
      const auto n = sketch::sketch_window(g.data(), g.size(), w, db.params.sketch, features);
      for (std::uint32_t i = 0; i < n; ++i) entries.push_back({features[i], {t, w}});
    }
  }
  db.index = db::finalize(std::move(entries), db.params, 1);
}

// Root 1 > genus 10 "G" > species 100 "G a" (strains 101, 102) and 200
// "G b"; root 1 > genus 20 "H" > species 300 "H c".
inline taxonomy::Taxonomy two_genera() {
  using taxonomy::Rank;
  return taxonomy::Taxonomy::from_nodes({
      {1, 1, Rank::none, "root"},
      {10, 1, Rank::genus, "G"},
      {20, 1, Rank::genus, "H"},
      {100, 10, Rank::species, "G a"},
      {101, 100, Rank::strain, "G a s1"},
      {102, 100, Rank::strain, "G a s2"},
      {200, 10, Rank::species, "G b"},
      {300, 20, Rank::species, "H c"},
  });
}

// A test's genomes and the database sketched from them (a fixture's base).
struct SketchedGenomes {
  std::vector<std::string> genomes;
  db::Database db;

  // db: the default parameters, the taxonomy two_genera() and the targets of
  // sketch_targets(genomes, taxa).
  void sketch(const std::vector<taxonomy::taxid_t>& taxa) {
    db.taxonomy = two_genera();
    sketch_targets(db, genomes, taxa);
  }
};

// The test binary's one T (a fixture too slow to build per test case),
// built on first use.
template <class T>
const T& built_once() {
  static const T t;
  return t;
}

}  // namespace metawarp::test
