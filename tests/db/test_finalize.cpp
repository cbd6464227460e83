// finalize() and FeatureIndex against a brute-force std::map reference.
#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "catch.hpp"
#include "db/database.hpp"

using namespace metawarp;
using namespace metawarp::db;

namespace {

// Random entries with many duplicates and some features far above the cap.
std::vector<Entry> random_entries(std::mt19937_64& rng, std::size_t n, std::size_t feature_pool,
                                  std::uint32_t targets, std::uint32_t windows) {
  std::vector<feature_t> pool(feature_pool);
  for (auto& f : pool) f = feature_t(rng());
  pool[0] = 0;  // extremes of the hash range
  if (feature_pool > 1) pool[1] = 0xffffffffu;
  std::vector<Entry> entries(n);
  for (auto& e : entries) {
    // One entry in ten goes to one of five hot features (long lists, above
    // any cap tested); the rest spread over the pool.
    e.feature = pool[rng() % 10 == 0 ? rng() % std::min<std::size_t>(5, feature_pool)
                                     : rng() % feature_pool];
    e.location = Location{std::uint32_t(rng() % targets), std::uint32_t(rng() % windows)};
  }
  return entries;
}

using Reference = std::map<feature_t, std::vector<Location>>;

Reference brute_force(const std::vector<Entry>& entries, const DatabaseParams& p) {
  std::map<feature_t, std::set<std::uint64_t>> all;
  for (const Entry& e : entries) all[e.feature].insert(e.location.packed());
  Reference ref;
  for (const auto& [f, locs] : all) {
    if (p.remove_overpopulated_features && locs.size() > p.max_locations_per_feature) continue;
    std::vector<Location> kept;
    for (std::uint64_t v : locs) {
      if (kept.size() == p.max_locations_per_feature) break;
      kept.push_back(Location::unpack(v));
    }
    ref[f] = kept;
  }
  return ref;
}

void require_matches(const FeatureIndex& index, const Reference& ref) {
  REQUIRE(index.feature_count() == ref.size());
  REQUIRE(index.offsets().size() == ref.size() + 1);
  std::size_t i = 0, total = 0;
  for (const auto& [f, locs] : ref) {
    REQUIRE(index.features()[i] == f);
    REQUIRE(index.offsets()[i] == total);
    const auto found = index.find(f);
    REQUIRE(std::vector<Location>(found.begin(), found.end()) == locs);
    total += locs.size();
    ++i;
  }
  REQUIRE(index.offsets().back() == total);
  REQUIRE(index.location_count() == total);
}

}  // namespace

TEST_CASE("finalize equals the brute-force reference (cap, duplicates, removal)") {
  std::mt19937_64 rng(2024);
  for (std::uint32_t cap : {1u, 3u, 254u}) {
    for (bool remove : {false, true}) {
      DatabaseParams p;
      p.max_locations_per_feature = cap;
      p.remove_overpopulated_features = remove;
      const auto entries = random_entries(rng, 60000, 3000, 20, 40);
      const Reference ref = brute_force(entries, p);
      DatabaseParams uncapped;
      uncapped.max_locations_per_feature = 1u << 30;
      const Reference all = brute_force(entries, uncapped);
      const auto overpopulated = std::count_if(all.begin(), all.end(), [&](const auto& kv) {
        return kv.second.size() > cap;
      });
      REQUIRE(overpopulated >= 5);  // the cap and the removal are really exercised
      INFO("cap=" << cap << " remove=" << remove);
      require_matches(finalize(entries, p, 3), ref);
    }
  }
}

TEST_CASE("finalize handles empty and tiny inputs") {
  DatabaseParams p;
  const FeatureIndex empty = finalize({}, p, 4);
  CHECK(empty.feature_count() == 0);
  CHECK(empty.location_count() == 0);
  CHECK(empty.offsets() == IndexArray<std::uint64_t>{0});
  CHECK(empty.find(123).empty());
  CHECK(empty == FeatureIndex());

  const FeatureIndex one = finalize({Entry{7, {1, 2}}, Entry{7, {1, 2}}}, p, 1);
  REQUIRE(one.feature_count() == 1);
  REQUIRE(one.find(7).size() == 1);
  CHECK(one.find(7)[0] == Location{1, 2});
  CHECK(one.find(8).empty());

  p.max_locations_per_feature = 0;
  CHECK_THROWS_AS(finalize({}, p, 1), std::invalid_argument);
}

TEST_CASE("finalize output does not depend on thread count or input order") {
  std::mt19937_64 rng(77);
  DatabaseParams p;
  p.max_locations_per_feature = 16;
  auto entries = random_entries(rng, 200000, 50000, 1000, 500);
  const FeatureIndex reference = finalize(entries, p, 1);
  require_matches(reference, brute_force(entries, p));
  for (unsigned threads : {2u, 7u}) {
    std::shuffle(entries.begin(), entries.end(), rng);
    INFO("threads=" << threads);
    CHECK(finalize(entries, p, threads) == reference);
  }
  CHECK(finalize(entries, p, 0) == reference);  // 0 threads means 1
}

TEST_CASE("finalize_chunks equals finalize on the concatenated entries") {
  std::mt19937_64 rng(31);
  DatabaseParams p;
  p.max_locations_per_feature = 8;
  const auto entries = random_entries(rng, 120000, 20000, 300, 800);
  const FeatureIndex reference = finalize(entries, p, 2);
  // Three workers' outputs, each split into uneven arrays (one empty).
  std::vector<EntryChunks> parts(3);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    EntryChunks& part = parts[rng() % 3];
    if (part.empty() || rng() % 5000 == 0) part.emplace_back();
    part.back().push_back(entries[i]);
  }
  parts[1].emplace_back();
  for (unsigned threads : {1u, 4u}) {
    INFO("threads=" << threads);
    CHECK(finalize_chunks(parts, p, threads) == reference);
  }
  CHECK(finalize_chunks({}, p, 2) == FeatureIndex());
}

TEST_CASE("finalize with targets and windows too large to pack into 64 bits") {
  // 20 in-bucket feature bits + 32 target bits + 32 window bits: the entries
  // are sorted whole instead of as packed keys; the result must not change.
  std::mt19937_64 rng(99);
  for (bool remove : {false, true}) {
    DatabaseParams p;
    p.max_locations_per_feature = 4;
    p.remove_overpopulated_features = remove;
    auto entries = random_entries(rng, 40000, 2000, 50, 60);
    for (auto& e : entries) {
      e.location.target = e.location.target * 0x05000000u + 7;  // up to ~2^32
      e.location.window = 0xffffffffu - e.location.window * 0x01000000u;
    }
    INFO("remove=" << remove);
    const FeatureIndex index = finalize(entries, p, 3);
    require_matches(index, brute_force(entries, p));
    std::shuffle(entries.begin(), entries.end(), rng);
    CHECK(finalize(entries, p, 1) == index);
  }
}

TEST_CASE("FeatureIndex find_many equals find, present and absent features") {
  std::mt19937_64 rng(12);
  DatabaseParams p;
  const auto entries = random_entries(rng, 50000, 5000, 40, 100);
  const FeatureIndex index = finalize(entries, p, 2);
  std::vector<feature_t> queries;
  for (const Entry& e : entries) queries.push_back(rng() % 2 ? e.feature : feature_t(rng()));
  queries.resize(1000 + 37);  // more than one stage of the staged lookup, with a remainder
  std::vector<std::span<const Location>> found(queries.size());
  index.find_many(queries.data(), queries.size(), found.data());
  std::size_t hits = 0;
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const auto expected = index.find(queries[i]);
    REQUIRE(found[i].data() == expected.data());
    REQUIRE(found[i].size() == expected.size());
    hits += !expected.empty();
  }
  CHECK(hits > 100);
  CHECK(hits < queries.size());
}

TEST_CASE("FeatureIndex lookup finds every feature and nothing else") {
  std::mt19937_64 rng(5);
  // Large enough to use the parallel lookup build.
  IndexArray<feature_t> features(1500000);
  for (auto& f : features) f = feature_t(rng());
  std::sort(features.begin(), features.end());
  features.erase(std::unique(features.begin(), features.end()), features.end());
  IndexArray<std::uint64_t> offsets(features.size() + 1);
  IndexArray<Location> locations(features.size());
  for (std::size_t i = 0; i < features.size(); ++i) {
    offsets[i] = i;
    locations[i] = Location{std::uint32_t(i), std::uint32_t(i % 7)};
  }
  offsets.back() = features.size();
  const std::set<feature_t> present(features.begin(), features.end());
  const FeatureIndex index(features, offsets, locations);
  for (std::size_t i = 0; i < features.size(); i += 37) {
    const auto found = index.find(features[i]);
    REQUIRE(found.size() == 1);
    REQUIRE(found[0].target == i);
  }
  for (int probe = 0; probe < 100000; ++probe) {
    const feature_t f = feature_t(rng());
    REQUIRE(index.find(f).empty() == (present.count(f) == 0));
  }
  CHECK(index.lookup_bytes() >= features.size() * 8);

  // Consistency is checked in parallel at this size; the first problem in
  // feature order is the one reported.
  auto unordered = features;
  std::swap(unordered[1200000], unordered[1200001]);
  std::swap(unordered[900000], unordered[900001]);
  try {
    FeatureIndex bad(unordered, offsets, locations);
    FAIL("features out of order were accepted");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()) == "feature index: features not strictly ascending at 900001");
  }

  // A moved-from index is empty and usable.
  FeatureIndex moved = FeatureIndex(features, offsets, locations);
  FeatureIndex target = std::move(moved);
  CHECK(moved.feature_count() == 0);
  CHECK(moved.find(features[0]).empty());
  CHECK(target.find(features[0]).size() == 1);
}

TEST_CASE("FeatureIndex rejects inconsistent arrays") {
  using V = IndexArray<Location>;
  CHECK_THROWS_AS(FeatureIndex({1, 2}, {0, 1}, V(1)), std::invalid_argument);      // offsets count
  CHECK_THROWS_AS(FeatureIndex({2, 1}, {0, 1, 2}, V(2)), std::invalid_argument);   // not ascending
  CHECK_THROWS_AS(FeatureIndex({1, 1}, {0, 1, 2}, V(2)), std::invalid_argument);   // duplicate
  CHECK_THROWS_AS(FeatureIndex({1, 2}, {0, 2, 1}, V(1)), std::invalid_argument);   // decreasing
  CHECK_THROWS_AS(FeatureIndex({1, 2}, {0, 1, 3}, V(2)), std::invalid_argument);   // span
  CHECK_NOTHROW(FeatureIndex({1, 2}, {0, 1, 2}, V(2)));
}
