// compute_stats() against counts taken directly from the database.
#include <map>
#include <random>

#include "catch.hpp"
#include "db/stats.hpp"

using namespace metawarp;
using namespace metawarp::db;

TEST_CASE("compute_stats counts lists into power-of-two buckets up to the cap") {
  for (std::uint32_t cap : {1u, 2u, 5u, 254u}) {
    Database db;
    db.params.max_locations_per_feature = cap;
    db.targets.resize(3);
    db.targets[0] = Target{"a", "a", 562, 1000, 8, "f"};
    db.targets[1] = Target{"b", "b", taxonomy::no_taxon, 50, 1, "f"};
    db.targets[2] = Target{"c", "c", 561, 300, 3, "g"};
    std::mt19937_64 rng(cap);
    std::vector<Entry> entries;
    for (int i = 0; i < 30000; ++i)
      entries.push_back(Entry{feature_t(rng() % 700),
                              Location{std::uint32_t(rng() % 3), std::uint32_t(rng() % 400)}});
    db.index = finalize(entries, db.params, 2);
    const DatabaseStats s = compute_stats(db);

    CHECK(s.targets == 3);
    CHECK(s.unmapped_targets == 1);
    CHECK(s.total_bases == 1350);
    CHECK(s.total_windows == 12);
    CHECK(s.features == db.index.feature_count());
    CHECK(s.locations == db.index.location_count());

    // Reference histogram: length -> count, bucketed by hand.
    std::map<std::uint64_t, std::uint64_t> lengths;
    for (std::size_t i = 0; i < s.features; ++i)
      ++lengths[db.index.offsets()[i + 1] - db.index.offsets()[i]];
    REQUIRE(!s.histogram.empty());
    CHECK(s.histogram.front().min_length == 1);
    CHECK(s.histogram.back().min_length == cap);
    CHECK(s.histogram.back().max_length == LengthBucket::open_end);
    std::uint64_t in_buckets = 0;
    for (std::size_t b = 0; b < s.histogram.size(); ++b) {
      const LengthBucket& bucket = s.histogram[b];
      if (b > 0) CHECK(bucket.min_length == s.histogram[b - 1].max_length + 1);
      if (b + 1 < s.histogram.size()) {  // 1, 2, 3-4, 5-8, ...: ends are powers of two or cap-1
        const std::uint64_t end = bucket.max_length;
        CHECK(((end & (end - 1)) == 0 || end == cap - 1));
      }
      std::uint64_t expected = 0;
      for (const auto& [length, count] : lengths)
        if (length >= bucket.min_length && length <= bucket.max_length) expected += count;
      CHECK(bucket.features == expected);
      in_buckets += bucket.features;
    }
    CHECK(in_buckets == s.features);
    CHECK(s.features_at_cap == (lengths.count(cap) ? lengths.at(cap) : 0));
    CHECK(s.longest_list == lengths.rbegin()->first);
    CHECK(s.index_bytes == s.features * 4 + (s.features + 1) * 8 + s.locations * 8);
    CHECK(s.memory_bytes == s.index_bytes + db.index.lookup_bytes());
  }
}
