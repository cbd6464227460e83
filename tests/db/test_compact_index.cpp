// The compact index of format version 4 (db/compact_index.hpp): widths by
// the rule, global window ids back to (target, window) for any targets
// (empty ones, one, many), both location widths, offsets from counts on any
// thread count, a bad id found where it is.
#include <algorithm>
#include <random>
#include <vector>

#include "catch.hpp"
#include "db/compact_index.hpp"

using namespace metawarp;
using namespace metawarp::db;

namespace {

std::vector<Target> targets_with(const std::vector<std::uint32_t>& windows) {
  std::vector<Target> targets(windows.size());
  for (std::size_t t = 0; t < windows.size(); ++t) targets[t].windows = windows[t];
  return targets;
}

}  // namespace

TEST_CASE("compact index: the widths are the smallest that hold the cap and the ids") {
  CHECK(compact::count_width(1) == 1);
  CHECK(compact::count_width(255) == 1);
  CHECK(compact::count_width(256) == 2);
  CHECK(compact::count_width(65535) == 2);
  CHECK(compact::count_width(65536) == 4);
  CHECK(compact::count_width(0xffffffffu) == 4);
  CHECK(compact::location_width(0) == 4);
  CHECK(compact::location_width(std::uint64_t(1) << 32) == 4);  // ids up to 2^32 - 1
  CHECK(compact::location_width((std::uint64_t(1) << 32) + 1) == 8);
}

TEST_CASE("compact index: every window id decodes to its (target, window), both widths") {
  std::mt19937_64 rng(3);
  const std::vector<std::vector<std::uint32_t>> sets = {
      {5}, {0, 3, 0, 0, 7, 1, 0}, {1, 1, 1, 1}, {1000000, 2, 0, 5000}};
  std::vector<std::uint32_t> many(3000);
  for (auto& w : many) w = std::uint32_t(rng() % 5 == 0 ? 0 : rng() % 20000);
  std::vector<std::vector<std::uint32_t>> all = sets;
  all.push_back(many);
  for (const auto& windows : all) {
    const std::vector<Target> targets = targets_with(windows);
    const compact::WindowIds ids(targets);
    std::vector<Location> locations;
    for (std::uint32_t t = 0; t < windows.size(); ++t)
      for (std::uint32_t w = 0; w < windows[t]; w += 1 + windows[t] / 50) locations.push_back({t, w});
    CAPTURE(windows.size());
    for (std::uint32_t width : {4u, 8u}) {
      std::vector<char> bytes(locations.size() * width);
      compact::encode_locations(locations.data(), locations.size(), ids, width, bytes.data());
      std::vector<Location> back(locations.size());
      CHECK(compact::decode_locations(bytes.data(), locations.size(), ids, width, back.data()) ==
            locations.size());
      bool same = true;
      for (std::size_t i = 0; i < locations.size(); ++i)
        same = same && back[i].target == locations[i].target && back[i].window == locations[i].window;
      CHECK(same);
      for (std::size_t i = 1; i < locations.size(); ++i)  // the ids keep the (target, window) order
        REQUIRE(compact::element_at(bytes.data(), i - 1, width) < compact::element_at(bytes.data(), i, width));
    }
  }
  // An id at or past the windows: its position, nothing from it decoded.
  const std::vector<Target> targets = targets_with({2, 3});
  const compact::WindowIds ids(targets);
  const std::uint32_t raw[] = {0, 4, 5, 1};
  std::vector<Location> out(4, Location{9, 9});
  CHECK(compact::decode_locations(reinterpret_cast<const char*>(raw), 4, ids, 4, out.data()) == 2);
  CHECK((out[1].target == 1 && out[1].window == 2));
  CHECK(out[2].target == 9);
}

TEST_CASE("compact index: offsets from counts on any thread count, every width") {
  std::mt19937_64 rng(8);
  for (std::uint32_t width : {1u, 2u, 4u}) {
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(300001)}) {
      std::vector<std::uint64_t> offsets(n + 1, 0);
      const std::uint64_t largest = width == 1 ? 255 : width == 2 ? 65535 : 70000;
      for (std::size_t i = 0; i < n; ++i) offsets[i + 1] = offsets[i] + rng() % (largest + 1);
      std::vector<char> counts(n * width);
      compact::encode_counts(offsets.data(), 0, n, width, counts.data());
      CHECK(compact::sum_counts(counts.data(), n, width) == offsets[n]);
      for (unsigned threads : {1u, 2u, 3u, 16u, 0u}) {
        std::vector<std::uint64_t> back(n + 1, 7);
        compact::offsets_from_counts(counts.data(), n, width, 0, back.data(), threads);
        CAPTURE(width, n, threads);
        CHECK(std::equal(back.begin(), back.end(), offsets.begin()));  // no vectors printed
        compact::offsets_from_counts(counts.data(), n, width, 100, back.data(), threads);
        bool shifted = true;
        for (std::size_t i = 0; i <= n; ++i) shifted = shifted && back[i] == offsets[i] + 100;
        CHECK(shifted);
      }
    }
  }
}
