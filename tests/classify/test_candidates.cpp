// Candidate range scoring and top-k selection, against hand-worked cases and
// a brute force that tries every start window of every target.
#include <algorithm>
#include <map>
#include <random>
#include <vector>

#include "catch.hpp"
#include "metawarp/classify/candidates.hpp"

using namespace metawarp::classify;
using metawarp::sketch::Location;

namespace {

std::vector<Candidate> run_top(std::vector<Location> hits, std::uint32_t span, std::uint32_t k) {
  std::sort(hits.begin(), hits.end());
  std::vector<Candidate> top(k);
  const auto n = top_candidates(hits.data(), std::uint32_t(hits.size()), span, top.data(), k);
  top.resize(n);
  return top;
}

// Reference: for each target, every start window s from 0 to its largest hit
// window; hits counted by scanning all hits. The range's first hit window
// breaks ties between equally good ranges (the lowest wins).
std::vector<Candidate> brute_force(const std::vector<Location>& hits, std::uint32_t span,
                                   std::uint32_t k) {
  std::map<std::uint32_t, std::vector<std::uint32_t>> windows_of;
  for (const Location& h : hits) windows_of[h.target].push_back(h.window);
  std::vector<Candidate> all;
  for (const auto& [target, windows] : windows_of) {
    const std::uint32_t max_window = *std::max_element(windows.begin(), windows.end());
    Candidate best;
    best.target = target;
    for (std::uint64_t s = 0; s <= max_window; ++s) {
      std::uint32_t count = 0;
      std::uint32_t first = UINT32_MAX, last = 0;
      for (std::uint32_t w : windows) {
        if (w >= s && w < s + span) {
          ++count;
          first = std::min(first, w);
          last = std::max(last, w);
        }
      }
      if (count > best.hits || (count == best.hits && count > 0 && first < best.first_window)) {
        best.hits = count;
        best.first_window = first;
        best.last_window = last;
      }
    }
    all.push_back(best);
  }
  std::sort(all.begin(), all.end(), [](const Candidate& a, const Candidate& b) {
    if (a.hits != b.hits) return a.hits > b.hits;
    if (a.target != b.target) return a.target < b.target;
    return a.first_window < b.first_window;
  });
  if (all.size() > k) all.resize(k);
  return all;
}

bool same(const Candidate& a, const Candidate& b) {
  return a.target == b.target && a.hits == b.hits && a.first_window == b.first_window &&
         a.last_window == b.last_window;
}

}  // namespace

TEST_CASE("window span covers every window a fragment can touch") {
  // stride 112 (w 127, k 16): a 150 bp read covers 135 k-mer starts, which
  // can straddle at most 3 windows; the span rule gives 150/112 + 2 = 3.
  CHECK(window_span(150, 112) == 3);
  CHECK(window_span(300, 112) == 4);
  CHECK(window_span(0, 112) == 2);
  CHECK(window_span(112, 112) == 3);
  // Exhaustively: k-mer starts [p, p + L - k] lie in windows p/stride ..
  // (p+L-k)/stride, never more than the span.
  for (std::uint32_t stride : {1u, 5u, 112u}) {
    for (std::uint64_t len = 16; len < 400; len += 7) {
      std::uint64_t most = 0;
      for (std::uint64_t p = 0; p < 3 * stride; ++p)
        most = std::max<std::uint64_t>(most, (p + len - 16) / stride - p / stride + 1);
      CHECK(most <= window_span(len, stride));
    }
  }
}

TEST_CASE("a pair spans at least the insert size, a single read only itself") {
  using metawarp::classify::read_window_span;
  // Single reads: their own length, whatever the insert size.
  CHECK(read_window_span(150, 0, 500, 112) == window_span(150, 112));
  CHECK(read_window_span(0, 0, 500, 112) == window_span(0, 112));
  // Pairs: max(insert size, len1 + len2).
  CHECK(read_window_span(150, 150, 500, 112) == window_span(500, 112));
  CHECK(read_window_span(400, 300, 500, 112) == window_span(700, 112));
  CHECK(read_window_span(150, 150, 0, 112) == window_span(300, 112));
}

TEST_CASE("best range of one target, hand-worked") {
  // Windows 1,2,2,3 then 10,11: with span 3 the range [1,4) holds 4 hits.
  std::vector<Location> hits{{7, 1}, {7, 2}, {7, 2}, {7, 3}, {7, 10}, {7, 11}};
  Candidate c = best_range(hits.data(), std::uint32_t(hits.size()), 3);
  CHECK(c.target == 7);
  CHECK(c.hits == 4);
  CHECK(c.first_window == 1);
  CHECK(c.last_window == 3);

  // Span 1: only one window at a time; window 2 (two hits) wins.
  c = best_range(hits.data(), std::uint32_t(hits.size()), 1);
  CHECK(c.hits == 2);
  CHECK(c.first_window == 2);
  CHECK(c.last_window == 2);

  // Two equally good ranges: the lower one wins.
  std::vector<Location> tie{{0, 5}, {0, 6}, {0, 20}, {0, 21}};
  c = best_range(tie.data(), 4, 2);
  CHECK(c.hits == 2);
  CHECK(c.first_window == 5);

  // A huge span takes everything; window + span must not overflow.
  std::vector<Location> far{{0, 0}, {0, 0xfffffff0u}, {0, 0xffffffffu}};
  c = best_range(far.data(), 3, 0x20);
  CHECK(c.hits == 2);
  CHECK(c.first_window == 0xfffffff0u);
}

TEST_CASE("top candidates order: hits, then target, then window") {
  std::vector<Location> hits{{3, 0}, {3, 1}, {1, 4}, {1, 5}, {2, 9}, {2, 9}, {2, 9}, {0, 2}};
  auto top = run_top(hits, 2, 3);
  REQUIRE(top.size() == 3);
  CHECK(top[0].target == 2);  // 3 hits
  CHECK(top[0].hits == 3);
  CHECK(top[1].target == 1);  // 2 hits, lower id than target 3
  CHECK(top[2].target == 3);

  // Capacity larger than the number of targets.
  top = run_top(hits, 2, 16);
  CHECK(top.size() == 4);
  CHECK(top[3].target == 0);
  CHECK(top[3].hits == 1);

  // No hits.
  CHECK(run_top({}, 3, 2).empty());
}

TEST_CASE("insert_candidate keeps the best k in order") {
  Candidate top[2];
  std::uint32_t n = 0;
  n = insert_candidate({5, 0, 0, 1}, top, n, 2);
  n = insert_candidate({4, 0, 0, 3}, top, n, 2);
  n = insert_candidate({9, 0, 0, 2}, top, n, 2);
  n = insert_candidate({1, 0, 0, 2}, top, n, 2);  // ties hits with 9, lower id
  REQUIRE(n == 2);
  CHECK(top[0].target == 4);
  CHECK(top[1].target == 1);
  CHECK(insert_candidate({1, 0, 0, 9}, top, 0, 0) == 0);
}

TEST_CASE("top candidates match a brute force on random hit lists") {
  std::mt19937 rng(12345);
  for (int trial = 0; trial < 500; ++trial) {
    const std::uint32_t targets = 1 + rng() % 6;
    const std::uint32_t windows = 1 + rng() % 30;
    const std::uint32_t n = rng() % 60;
    std::vector<Location> hits;
    for (std::uint32_t i = 0; i < n; ++i)
      hits.push_back({std::uint32_t(rng() % targets), std::uint32_t(rng() % windows)});
    const std::uint32_t span = 1 + rng() % 6;
    const std::uint32_t k = 1 + rng() % 4;
    const auto got = run_top(hits, span, k);
    const auto want = brute_force(hits, span, k);
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      INFO("trial " << trial << " candidate " << i);
      CHECK(same(got[i], want[i]));
    }
    // Input order does not matter: shuffle, sort again, same answer.
    std::shuffle(hits.begin(), hits.end(), rng);
    const auto again = run_top(hits, span, k);
    for (std::size_t i = 0; i < got.size(); ++i) CHECK(same(got[i], again[i]));
  }
}

TEST_CASE("repeats_within_span: a feature's next location in its target closer than span") {
  CHECK(repeats_within_span({1, 5}, {1, 5}, 3));
  CHECK(repeats_within_span({1, 5}, {1, 7}, 3));
  CHECK_FALSE(repeats_within_span({1, 5}, {1, 8}, 3));  // span apart: never in one range
  CHECK_FALSE(repeats_within_span({1, 5}, {2, 5}, 3));  // another target
  CHECK_FALSE(repeats_within_span({1, 0xfffffffeu}, {2, 0}, 0xffffffffu));
  CHECK(repeats_within_span({1, 0xfffffff0u}, {1, 0xfffffffeu}, 0xffffffffu));  // no wrap
}
