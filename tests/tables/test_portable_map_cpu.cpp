// The portable map's host path (no GPU): against std::unordered_map over a
// typed matrix of key/value types, with duplicates, sentinel keys,
// erase/reinsert, tombstone cleanup and growth.
#include <cstdint>
#include <random>
#include <set>
#include <unordered_map>
#include <vector>

#include "catch_templates.hpp"
#include "metawarp/tables/portable_map.hpp"

using namespace metawarp::tables;

namespace {

template <class K, class V>
struct Types {
  using key = K;
  using value = V;
};

// Every stored pair, and the map's own invariants: each key reachable from
// its home slot without crossing an empty slot, no key twice, counters right.
template <class Map>
std::unordered_map<typename Map::key_type, typename Map::value_type> contents_checked(
    const Map& map) {
  using K = typename Map::key_type;
  std::unordered_map<K, typename Map::value_type> out;
  std::uint64_t tombstones = 0;
  const auto& slots = map.slots();
  const std::uint64_t mask = slots.size() - 1;
  for (std::uint64_t i = 0; i < slots.size(); ++i) {
    const K k = slots[i].key;
    if (k == KeySentinels<K>::tombstone) ++tombstones;
    if (!KeySentinels<K>::is_valid(k)) continue;
    REQUIRE(out.emplace(k, slots[i].value).second);
    const std::uint64_t home = fibonacci_home(k, map.size_power());
    const std::uint64_t distance = probe_distance(i, home, mask);
    REQUIRE(distance <= map.max_distance());
    for (std::uint64_t d = 0; d < distance; ++d) {
      REQUIRE(slots[(home + d) & mask].key != KeySentinels<K>::empty);
    }
  }
  REQUIRE(out.size() == map.size());
  REQUIRE(tombstones == map.tombstones());
  return out;
}

}  // namespace

TEMPLATE_TEST_CASE("portable map host path matches std::unordered_map", "[portable]",
                   (Types<std::uint32_t, std::uint32_t>), (Types<std::uint32_t, std::uint64_t>),
                   (Types<std::uint64_t, std::uint32_t>), (Types<std::uint64_t, std::uint64_t>)) {
  using K = typename TestType::key;
  using V = typename TestType::value;
  std::mt19937_64 rng(42);
  PortableMap<K, V> map(4);
  std::unordered_map<K, V> reference;

  SECTION("random inserts with duplicates, finds of hits and misses, growth") {
    for (int i = 0; i < 20000; ++i) {
      const K k = K(rng() % 15000);  // repeats on purpose
      const V v = V(rng());
      const bool fresh = reference.emplace(k, v).second;
      const Status s = map.insert(k, v);
      REQUIRE(s.ok() == fresh);
      if (!fresh) REQUIRE(s.has(Status::duplicate_key));
      REQUIRE(map.load_factor() <= map.options().max_load_factor);
    }
    CHECK(contents_checked(map) == reference);
    for (K k = 0; k < 16000; ++k) {
      const auto it = reference.find(k);
      const auto found = map.find(k);
      REQUIRE(found.has_value() == (it != reference.end()));
      if (found) REQUIRE(*found == it->second);
      REQUIRE(map.contains(k) == found.has_value());
    }
  }

  SECTION("insert_or_assign overwrites, insert keeps the first value") {
    REQUIRE(map.insert(K(7), V(1)).ok());
    REQUIRE(map.insert(K(7), V(2)).has(Status::duplicate_key));
    REQUIRE(*map.find(K(7)) == V(1));
    REQUIRE(map.insert_or_assign(K(7), V(3)).ok());
    REQUIRE(*map.find(K(7)) == V(3));
    REQUIRE(map.size() == 1);
  }

  SECTION("sentinel keys are rejected and never found") {
    REQUIRE(map.insert(KeySentinels<K>::empty, V(1)).has(Status::invalid_key));
    REQUIRE(map.insert(KeySentinels<K>::tombstone, V(1)).has(Status::invalid_key));
    REQUIRE_FALSE(map.contains(KeySentinels<K>::empty));
    REQUIRE_FALSE(map.erase(KeySentinels<K>::tombstone));
    REQUIRE(map.size() == 0);
  }

  SECTION("erase and reinsert, tombstones cleaned without growth") {
    for (K k = 0; k < 3000; ++k) {
      map.insert(k, V(k));
      reference.emplace(k, V(k));
    }
    const std::uint64_t capacity = map.capacity();
    for (int round = 0; round < 20; ++round) {
      for (int j = 0; j < 500; ++j) {
        const K k = K(rng() % 3000);
        REQUIRE(map.erase(k) == (reference.erase(k) == 1));
      }
      for (int j = 0; j < 500; ++j) {
        const K k = K(rng() % 3000);
        const V v = V(rng());
        REQUIRE(map.insert(k, v).ok() == reference.emplace(k, v).second);
      }
      REQUIRE(contents_checked(map) == reference);
    }
    // The key set never exceeded 3000, so churn alone must not have grown it.
    CHECK(map.capacity() == capacity);
    map.clean_tombstones();
    CHECK(map.tombstones() == 0);
    CHECK(contents_checked(map) == reference);
  }

  SECTION("slots round-trip through from_slots, rehash keeps contents") {
    for (K k = 1; k < 500; ++k) {
      map.insert(k * 7919u, V(k));
      reference.emplace(k * 7919u, V(k));
    }
    map.erase(K(7919));
    reference.erase(K(7919));
    auto copy = PortableMap<K, V>::from_slots(map.slots(), map.size_power(), map.options());
    CHECK(copy.size() == map.size());
    CHECK(copy.tombstones() == map.tombstones());
    CHECK(contents_checked(copy) == reference);
    copy.rehash(copy.size_power() + 2);
    CHECK(copy.tombstones() == 0);
    CHECK(contents_checked(copy) == reference);
    CHECK_THROWS(copy.rehash(2));
  }
}

TEST_CASE("Fibonacci home slots spread consecutive keys over the table", "[portable]") {
  for (int power : {4, 10, 16}) {
    std::set<std::uint64_t> homes;
    const std::uint64_t capacity = std::uint64_t(1) << power;
    for (std::uint64_t k = 0; k < capacity; ++k) {
      const std::uint64_t h = fibonacci_home(k, power);
      REQUIRE(h < capacity);
      homes.insert(h);
    }
    // Multiplicative hashing of a dense range: most homes distinct (not all
    // keys on a few slots). A uniform random map would hit ~63 %.
    CHECK(homes.size() >= capacity / 2);
  }
}

TEST_CASE("room planning: clean tombstones before growing", "[portable]") {
  PortableMapOptions o;
  o.max_load_factor = 0.5;
  CHECK(plan_room(10, 0, 1, 64, o) == RoomAction::none);
  CHECK(plan_room(20, 20, 1, 64, o) == RoomAction::clean_tombstones);
  CHECK(plan_room(32, 0, 1, 64, o) == RoomAction::grow);
  CHECK(portable_power_for(100, 0.5) == 8);
  CHECK(portable_power_for(0, 0.5) == portable_min_power);
  CHECK_THROWS(portable_power_for(10, 0.0));
}
