// The matched-bases rule (classify/matched_bases.hpp): the union of k-mer
// intervals, the least matched bases from (L, G, rate), the position of a
// sketch's features, and assign() voiding a call short of it.
#include <string>
#include <vector>

#include "catch.hpp"
#include "metawarp/classify/assign.hpp"
#include "metawarp/classify/matched_bases.hpp"
#include "metawarp/sketch/host.hpp"
#include "metawarp/sketch/sampling.hpp"

using namespace metawarp;
using namespace metawarp::classify;

namespace {

std::uint64_t covered(std::vector<std::uint32_t> positions, std::uint32_t k) {
  return union_length(positions.data(), std::uint32_t(positions.size()), k);
}

// The definition, term by term in long double: the smallest m with
// (L - m + 1) * 2G * 4^-m <= 1 / one_in.
std::uint32_t by_definition(std::uint32_t L, std::uint64_t G, std::uint32_t one_in) {
  for (std::uint32_t m = 1; m <= L; ++m) {
    long double chance = (long double)(L - m + 1) * 2.0L * (long double)G * (long double)one_in;
    for (std::uint32_t i = 0; i < m; ++i) chance /= 4.0L;
    if (chance <= 1.0L) return m;
  }
  return std::uint32_t(L + 1);
}

}  // namespace

TEST_CASE("union_length: overlapping, adjacent, apart and repeated k-mers") {
  CHECK(covered({}, 20) == 0);
  CHECK(covered({7}, 20) == 20);
  CHECK(covered({0, 5}, 20) == 25);           // overlapping
  CHECK(covered({0, 1, 2, 3}, 20) == 23);     // a run of consecutive k-mers
  CHECK(covered({0, 20}, 20) == 40);          // adjacent: no base twice
  CHECK(covered({0, 100}, 20) == 40);         // apart
  CHECK(covered({3, 3, 3}, 20) == 20);        // duplicates count once
  CHECK(covered({0, 10, 10, 15, 50}, 20) == 35 + 20);
  // Mate 1 of 150 bases: its last k-mer ends at 150, mate 2's first starts
  // at 150: the two cover 40 bases, never a base of the other mate.
  CHECK(covered({130, 150}, 20) == 40);
  // A position near the top of 32 bits: no overflow of position + k.
  CHECK(covered({0xfffffff0u, 0xfffffffau}, 32) == 32 + 10);
}

TEST_CASE("min_matched_bases: exact, against the definition") {
  // refs138 (260,444,092 bases) at one in a million: 28 for a mate of 150
  // (docs/accuracy.md), 29 for a pair (twice the read's places).
  constexpr std::uint64_t refs138 = 260444092;
  CHECK(min_matched_bases(150, refs138, chance_calls_one_in) == 28);
  CHECK(min_matched_bases(300, refs138, chance_calls_one_in) == 29);
  CHECK(min_matched_bases(150, refs138, 100000) == 27);  // 1e-5
  // Around the boundary of one case: (150 - 28 + 1) * 2G * 10^6 <= 4^28
  // holds for G up to 4^28 / (123 * 2 * 10^6) = 292,915,716.
  CHECK(min_matched_bases(150, 292917048, chance_calls_one_in) == 28);
  CHECK(min_matched_bases(150, 292917049, chance_calls_one_in) == 29);
  for (std::uint32_t L : {20u, 50u, 150u, 301u, 100000u})
    for (std::uint64_t G : {std::uint64_t(1), std::uint64_t(1000), std::uint64_t(5000000), refs138,
                            std::uint64_t(100000000000)}) {
      CAPTURE(L, G);
      CHECK(min_matched_bases(L, G, chance_calls_one_in) == by_definition(L, G, chance_calls_one_in));
    }
  // The largest inputs: exact, no product wraps (a wrapped product would
  // pass at a small m). Worked out with Python's integers.
  const std::uint64_t huge = ~std::uint64_t(0);
  CHECK(min_matched_bases(1000, huge, 0xffffffffu) == 54);
  CHECK(min_matched_bases(0xffffffffu, huge, 0xffffffffu) == 65);
  CHECK(min_matched_bases(0xffffffffu, huge, 1) == 49);
  // No room for a chance match longer than the read: L + 1.
  CHECK(min_matched_bases(10, refs138, chance_calls_one_in) == 11);
  CHECK(min_matched_bases(0, refs138, chance_calls_one_in) == 1);
  CHECK(min_matched_bases(150, 0, chance_calls_one_in) == 0);  // off
}

TEST_CASE("sketch_window_positions: the same sketch, each feature at the k-mer that gave it") {
  std::string seq;
  std::uint32_t state = 12345;
  for (int i = 0; i < 1200; ++i) {
    state = state * 1103515245u + 12345u;
    // A repeat of the first 200 bases, so that features recur in a window.
    seq += i >= 600 && i < 800 ? seq[i - 600] : "ACGT"[(state >> 16) & 3];
  }
  seq[450] = 'N';
  for (const sketch::SketchParams p :
       {sketch::default_sketch_params(sketch::Sampling::minimizer, 16),
        sketch::default_sketch_params(sketch::Sampling::scaled, 4)}) {
    CAPTURE(sketch::sampling_name(p));
    std::uint64_t checked = 0;
    for (std::uint64_t w = 0; w < sketch::window_count(seq.size(), p); ++w) {
      sketch::feature_t plain[sketch::max_sketch_size], out[sketch::max_sketch_size];
      sketch::feature_t host[sketch::max_sketch_size];
      std::uint32_t at[sketch::max_sketch_size], host_at[sketch::max_sketch_size];
      const std::uint32_t n = sketch::sketch_window(seq.data(), seq.size(), w, p, plain);
      REQUIRE(sketch::sketch_window_positions(seq.data(), seq.size(), w, p, out, at) == n);
      REQUIRE(sketch::host_sketch_window_positions(seq.data(), seq.size(), w, p, host,
                                                   host_at) == n);
      for (std::uint32_t j = 0; j < n; ++j) {
        CAPTURE(w, j);
        REQUIRE(out[j] == plain[j]);
        REQUIRE(host[j] == plain[j]);
        REQUIRE(host_at[j] == at[j]);
        REQUIRE(at[j] >= w * p.stride());
        REQUIRE(at[j] < (w + 1) * p.stride());
        // The k-mer there has this feature.
        const auto feature_at = [&](std::uint64_t from) {
          sketch::CanonicalRoller roller(p.k);
          sketch::kmer_t canonical = 0;
          bool valid = false;
          for (std::uint64_t i = from; i < from + p.k; ++i)
            valid = roller.push(sketch::encode_base(seq[i]), canonical);
          return valid ? sketch::sampled_feature(canonical) : ~sketch::feature_t(0);
        };
        CHECK(feature_at(at[j]) == out[j]);
        ++checked;
      }
    }
    CHECK(checked > 20);
  }
}

TEST_CASE("list_meets: a location of the target inside the window range") {
  const sketch::Location list[] = {{1, 4}, {2, 10}, {2, 20}, {5, 0}};
  CHECK(list_meets(list, 4, 2, 10, 12));
  CHECK(list_meets(list, 4, 2, 15, 20));
  CHECK_FALSE(list_meets(list, 4, 2, 11, 19));
  CHECK_FALSE(list_meets(list, 4, 3, 0, 100));
  CHECK(list_meets(list, 4, 5, 0, 0));
  CHECK_FALSE(list_meets(list, 0, 5, 0, 0));
}

TEST_CASE("assign: a call short of the needed matched bases is unclassified") {
  const TargetLineage lineages[] = {{{101, 0, 101, 10, 0, 0, 0, 0, 0, 2, 1}}};
  const Candidate top[] = {{0, 0, 0, 5}};
  CHECK(assign(top, 1, lineages, {}).taxid == 101);
  CHECK(assign(top, 1, lineages, {}, {28, 28}).taxid == 101);
  CHECK(assign(top, 1, lineages, {}, {27, 28}).taxid == unclassified_taxon);
  CHECK(assign(top, 1, lineages, {}, {27, 28}).best_hits == 5);
  CHECK(assign(top, 1, lineages, {}, {0, 0}).taxid == 101);  // the rule off
}
