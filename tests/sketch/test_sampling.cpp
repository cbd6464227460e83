// Content-defined sampling (sketch/sampling.hpp, issue 26) against a
// brute-force reference, and the property it exists for: a read keeps the
// sampled k-mers its genome keeps, wherever the windows are cut.
#include <algorithm>
#include <cctype>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "catch.hpp"
#include "metawarp/sketch/host.hpp"
#include "metawarp/sketch/sketch.hpp"

using namespace metawarp::sketch;

namespace {

std::string revcomp(const std::string& s) {
  std::string r(s.rbegin(), s.rend());
  for (char& c : r) {
    const char u = char(std::toupper(static_cast<unsigned char>(c)));
    c = u == 'A' ? 'T' : u == 'C' ? 'G' : u == 'G' ? 'C' : u == 'T' ? 'A' : 'N';
  }
  return r;
}

// A k-mer's two halves of fmix64: the high one orders and samples, the low
// one is the feature of content-defined sampling.
struct KmerHash {
  feature_t order = 0, feature = 0;
};

// The hash of the k-mer at every start position (nullopt: a non-ACGT base),
// from strings: the canonical k-mer is the smaller of the k-mer and its
// reverse complement in ACGT order, packed first base highest.
std::vector<std::optional<KmerHash>> position_hashes(const std::string& seq, std::uint32_t k) {
  std::vector<std::optional<KmerHash>> out;
  for (std::size_t pos = 0; pos + k <= seq.size(); ++pos) {
    std::string s = seq.substr(pos, k);
    bool ok = true;
    for (char& c : s) {
      c = char(std::toupper(static_cast<unsigned char>(c)));
      ok = ok && (c == 'A' || c == 'C' || c == 'G' || c == 'T');
    }
    if (!ok) {
      out.push_back(std::nullopt);
      continue;
    }
    const std::string canonical = std::min(s, revcomp(s));
    kmer_t x = 0;
    for (char c : canonical) x = (x << 2) | kmer_t(std::string("ACGT").find(c));
    const std::uint64_t mixed = metawarp::hash::fmix64(x);
    out.push_back(KmerHash{feature_t(mixed >> 32), feature_t(mixed)});
  }
  return out;
}

// Window wi's sketch by the definition: the features of the sampled k-mers
// starting in the window, the s smallest distinct ones.
std::vector<feature_t> naive_sampled_window(const std::string& seq, std::uint64_t wi,
                                            const SketchParams& p) {
  const auto hashes = position_hashes(seq, p.k);
  const std::uint64_t n = hashes.size();
  const std::uint64_t begin = wi * p.stride();
  const std::uint64_t end = std::min<std::uint64_t>(begin + p.stride(), n);
  std::set<feature_t> kept;
  if (p.sampling == Sampling::minimizer) {
    // Every run of W consecutive positions (the whole sequence when shorter):
    // the k-mers of the window with the run's smallest order.
    const std::uint64_t run = std::min<std::uint64_t>(p.sampling_parameter, n);
    for (std::uint64_t a = 0; run > 0 && a + run <= n; ++a) {
      std::optional<feature_t> m;
      for (std::uint64_t i = a; i < a + run; ++i)
        if (hashes[i] && (!m || hashes[i]->order < *m)) m = hashes[i]->order;
      for (std::uint64_t i = std::max(a, begin); m && i < std::min(a + run, end); ++i)
        if (hashes[i] && hashes[i]->order == *m) kept.insert(hashes[i]->feature);
    }
  } else if (p.sampling == Sampling::scaled) {
    for (std::uint64_t i = begin; i < end; ++i)
      if (hashes[i] &&
          std::uint64_t(hashes[i]->order) * p.sampling_parameter < (std::uint64_t(1) << 32))
        kept.insert(hashes[i]->feature);
  } else {
    for (std::uint64_t i = begin; i < end; ++i)
      if (hashes[i]) kept.insert(hashes[i]->order);
  }
  std::vector<feature_t> out(kept.begin(), kept.end());
  if (out.size() > p.sketch_size) out.resize(p.sketch_size);
  return out;
}

std::string random_dna(std::mt19937_64& rng, std::size_t length) {
  std::string s(length, 'A');
  for (char& c : s) c = "ACGT"[rng() % 4];
  return s;
}

// Random DNA with the hard parts: N runs, other codes, lower case, and
// low-complexity stretches (one base, a short period) where many k-mers
// share a hash and a run's minimum is found several times.
std::string hard_sequence(std::mt19937_64& rng, std::size_t length) {
  std::string s = random_dna(rng, length);
  for (std::size_t i = 0; i < length; i += 1 + rng() % 150) {
    const std::size_t run = std::min<std::size_t>(length - i, 1 + rng() % 60);
    switch (rng() % 5) {
      case 0: std::fill_n(s.begin() + std::ptrdiff_t(i), run, 'N'); break;
      case 1: s[i] = "RYKMSWn-"[rng() % 8]; break;
      case 2:
        for (std::size_t j = i; j < i + run; ++j) s[j] = char(std::tolower(s[j]));
        break;
      case 3: std::fill_n(s.begin() + std::ptrdiff_t(i), run, "ACGT"[rng() % 4]); break;
      default: {
        const std::size_t period = 2 + rng() % 2;
        for (std::size_t j = i; j < i + run; ++j) s[j] = "ACG"[(j - i) % period];
      }
    }
  }
  return s;
}

// The features of every window of seq, as one set.
std::set<feature_t> all_features(const std::string& seq, const SketchParams& p) {
  std::set<feature_t> out;
  for (const auto& window : sketch_all_windows(seq, p)) out.insert(window.begin(), window.end());
  return out;
}

SketchParams scaled(std::uint32_t k, std::uint32_t w, std::uint32_t s, std::uint32_t c) {
  return SketchParams{k, w, s, Sampling::scaled, c};
}
SketchParams minimizer(std::uint32_t k, std::uint32_t w, std::uint32_t s, std::uint32_t run) {
  return SketchParams{k, w, s, Sampling::minimizer, run};
}

}  // namespace

TEST_CASE("sampling parameters are checked, naming the parameter and its range") {
  std::string why;
  CHECK(valid(scaled(16, 127, 64, 2)));
  CHECK(valid(scaled(16, 127, 64, max_scale)));
  CHECK_FALSE(valid(scaled(16, 127, 64, 1), &why));
  CHECK(why == "c (FracMinHash scale) is 1: must be between 2 and 65535");
  CHECK_FALSE(valid(scaled(16, 127, 64, max_scale + 1)));
  CHECK(valid(minimizer(16, 127, 64, 2)));
  CHECK(valid(minimizer(16, 127, 64, max_minimizer_window)));
  CHECK_FALSE(valid(minimizer(16, 127, 64, max_minimizer_window + 1), &why));
  CHECK(why == "W (minimizer window in k-mers) is 129: must be between 2 and 128");
  CHECK_FALSE(valid(minimizer(16, 127, 64, 0)));
  CHECK_FALSE(valid(SketchParams{16, 127, 16, Sampling::window, 3}, &why));
  CHECK(why == "sampling parameter is 3: window sampling takes none (0)");
  CHECK_FALSE(valid(SketchParams{16, 127, 16, Sampling(7), 3}, &why));
  CHECK(why == "sampling is 7: must be 0 (window), 1 (scaled) or 2 (minimizer)");
  CHECK(sampling_name(scaled(16, 127, 64, 8)) == "scaled:8");
  CHECK(sampling_name(minimizer(16, 127, 64, 12)) == "minimizer:12");
  CHECK(sampling_name(SketchParams{}) == "window");
}

TEST_CASE("FracMinHash and minimizer sketches equal the brute-force reference") {
  std::mt19937_64 rng(2026);
  std::vector<SketchParams> cases{scaled(16, 127, 64, 8),   scaled(16, 127, 8, 2),
                                  scaled(1, 1, 1, 2),       scaled(32, 40, 64, 3),
                                  scaled(7, 30, 5, 100),    minimizer(16, 127, 64, 12),
                                  minimizer(16, 127, 6, 4), minimizer(1, 1, 1, 2),
                                  minimizer(32, 40, 64, 2), minimizer(5, 9, 64, 128),
                                  minimizer(11, 60, 64, 31)};
  for (std::uint32_t k = 1; k <= 32; k += 3) {
    cases.push_back(scaled(k, k + std::uint32_t(rng() % 80), 1 + std::uint32_t(rng() % 64),
                           2 + std::uint32_t(rng() % 20)));
    cases.push_back(minimizer(k, k + std::uint32_t(rng() % 80), 1 + std::uint32_t(rng() % 64),
                              2 + std::uint32_t(rng() % 40)));
  }
  for (const SketchParams& p : cases) {
    REQUIRE(valid(p));
    // Shorter than one minimizer run, about one run, one window, many windows.
    for (std::size_t length :
         {std::size_t(0), std::size_t(p.k), std::size_t(p.k + p.sampling_parameter / 2),
          std::size_t(p.k + p.sampling_parameter), std::size_t(p.window + 1),
          std::size_t(500 + rng() % 500)}) {
      const std::string seq = hard_sequence(rng, length);
      const auto sketches = sketch_all_windows(seq, p);
      feature_t got[max_sketch_size];
      for (std::uint64_t wi = 0; wi < sketches.size(); ++wi) {
        INFO(sampling_name(p) << " k=" << p.k << " w=" << p.window << " s=" << p.sketch_size
                              << " length=" << length << " window=" << wi);
        const std::vector<feature_t> expected = naive_sampled_window(seq, wi, p);
        REQUIRE(sketches[wi] == expected);
        const auto n = host_sketch_window(seq.data(), seq.size(), wi, p, got);
        REQUIRE(std::vector<feature_t>(got, got + n) == expected);
      }
    }
  }
}

// The reason for content-defined sampling: with minhash windows a read's
// features are the s smallest of ITS windows, which are cut elsewhere than
// the genome's, so many are not in the database; sampled by content, every
// feature of an error-free read is one of its genome's (FracMinHash: all of
// the genome's sampled k-mers inside the read; minimizers: all but those
// within W - 1 k-mers of the read's ends), on either strand.
TEST_CASE("a read's features are its genome's features when sampled by content") {
  std::mt19937_64 rng(26);
  const std::string genome = random_dna(rng, 20000);
  const std::vector<SketchParams> samplings{scaled(16, 127, 64, 8), minimizer(16, 127, 64, 12),
                                            scaled(24, 127, 64, 4), minimizer(31, 60, 64, 5)};
  for (const SketchParams& p : samplings) {
    const std::set<feature_t> in_genome = all_features(genome, p);
    const auto hashes = position_hashes(genome, p.k);
    for (int r = 0; r < 200; ++r) {
      const std::size_t length = 40 + rng() % 260;
      const std::size_t at = rng() % (genome.size() - length);
      const std::string read = genome.substr(at, length);
      const std::set<feature_t> features = all_features(read, p);
      INFO(sampling_name(p) << " read at " << at << ", " << length << " bases");
      REQUIRE(std::includes(in_genome.begin(), in_genome.end(), features.begin(), features.end()));
      CHECK(all_features(revcomp(read), p) == features);
      if (p.sampling == Sampling::scaled) {
        // Exactly the genome's sampled k-mers that lie in the read.
        std::set<feature_t> expected;
        for (std::size_t i = at; i + p.k <= at + length; ++i)
          if (hashes[i] && in_genome.count(hashes[i]->feature)) expected.insert(hashes[i]->feature);
        CHECK(features == expected);
      }
    }
  }
  // Minhash windows at the same density: reads lose features to the cut.
  const SketchParams window{16, 127, 16};
  const std::set<feature_t> in_genome = all_features(genome, window);
  std::size_t missing = 0, total = 0;
  for (int r = 0; r < 200; ++r) {
    const std::size_t at = rng() % (genome.size() - 150);
    for (const feature_t f : all_features(genome.substr(at, 150), window)) {
      ++total;
      missing += in_genome.count(f) == 0;
    }
  }
  CHECK(missing > total / 4);
}

// The sampled k-mers' high halves all lie below 2^32 / c; their features
// (the low halves) spread over all 32 bits, so that a read's feature meets an
// unrelated k-mer's only as often as 32 random bits do.
TEST_CASE("sampled features use all 32 bits, not the half that sampled them") {
  std::mt19937_64 rng(8);
  const std::string seq = random_dna(rng, 200000);
  for (const SketchParams& p : {scaled(21, 127, 64, 16), minimizer(21, 127, 64, 16)}) {
    std::size_t high = 0, total = 0;
    for (const auto& window : sketch_all_windows(seq, p))
      for (const feature_t f : window) {
        ++total;
        high += f >= (feature_t(1) << 31);
      }
    INFO(sampling_name(p) << ": " << high << " of " << total << " features >= 2^31");
    CHECK(std::abs(double(high) / double(total) - 0.5) < 0.02);
  }
}

TEST_CASE("a window keeps at most s sampled k-mers: the s smallest") {
  std::mt19937_64 rng(5);
  const std::string seq = random_dna(rng, 3000);
  for (const auto& [capped, open] :
       {std::pair{scaled(16, 127, 4, 2), scaled(16, 127, 64, 2)},
        std::pair{minimizer(16, 127, 4, 3), minimizer(16, 127, 64, 3)}}) {
    const auto small = sketch_all_windows(seq, capped), large = sketch_all_windows(seq, open);
    REQUIRE(small.size() == large.size());
    for (std::size_t w = 0; w < small.size(); ++w) {
      REQUIRE(large[w].size() > 4);  // a window of 112 k-mers samples many more
      CHECK(small[w] == std::vector<feature_t>(large[w].begin(), large[w].begin() + 4));
    }
  }
}

TEST_CASE("sampling densities: 1/c, 2/(W + 1), s of a window's stride") {
  std::mt19937_64 rng(11);
  const std::string seq = random_dna(rng, 400000);
  for (const SketchParams& p : {scaled(16, 127, 64, 8), scaled(21, 127, 64, 4),
                                minimizer(16, 127, 64, 12), minimizer(21, 127, 64, 6)}) {
    std::size_t features = 0;
    for (const auto& window : sketch_all_windows(seq, p)) features += window.size();
    const double measured = double(features) / double(seq.size() - p.k + 1);
    INFO(sampling_name(p) << ": " << measured << " against " << sampling_density(p));
    CHECK(std::abs(measured - sampling_density(p)) < 0.03 * sampling_density(p));
    CHECK(expected_window_features(p) == Approx(sampling_density(p) * p.stride()));
  }
  CHECK(sampling_density(SketchParams{16, 127, 16}) == Approx(16.0 / 112));
  CHECK(expected_window_features(SketchParams{16, 127, 16}) == 16);
  CHECK(expected_window_features(SketchParams{16, 20, 16}) == 16);  // as the hit-min rule had it
  CHECK(expected_window_features(scaled(16, 127, 10, 2)) == 10);    // the cap
}

// The GPU build sketches a long target from pieces (a batch holds a target's
// windows [a, b) and the bases window_bases names): every window's sketch
// from the piece is the whole target's. The piece is surrounded by other
// random bases, so a read beyond window_bases changes the sketch; minhash
// windows and FracMinHash need no context (their pieces as before issue 26).
TEST_CASE("a piece holding window_bases sketches its windows as the whole sequence does") {
  std::mt19937_64 rng(4242);
  std::vector<SketchParams> cases{SketchParams{16, 127, 16},       scaled(20, 127, 64, 8),
                                  minimizer(20, 127, 64, 16),      minimizer(16, 127, 6, 4),
                                  minimizer(5, 9, 64, max_minimizer_window),
                                  minimizer(11, 60, 64, 31),       minimizer(1, 1, 1, 2),
                                  minimizer(32, 40, 64, 127),      scaled(7, 30, 5, 100)};
  for (int i = 0; i < 6; ++i) {
    const std::uint32_t k = 1 + std::uint32_t(rng() % 32);
    cases.push_back(minimizer(k, k + std::uint32_t(rng() % 100), 1 + std::uint32_t(rng() % 64),
                              2 + std::uint32_t(rng() % (max_minimizer_window - 1))));
  }
  for (const SketchParams& p : cases) {
    REQUIRE(valid(p));
    const std::uint64_t context = context_kmers(p);
    CHECK(context == (p.sampling == Sampling::minimizer ? p.sampling_parameter - 1 : 0));
    for (std::size_t length :
         {std::size_t(p.k), std::size_t(p.k + p.sampling_parameter / 2), std::size_t(p.window),
          std::size_t(p.window + 1), std::size_t(300 + rng() % 3000)}) {
      const std::string seq = hard_sequence(rng, length);
      const std::uint64_t windows = window_count(length, p);
      const std::uint64_t kmers = length - p.k + 1;
      for (int piece = 0; piece < 12; ++piece) {
        const std::uint64_t a = rng() % windows;
        const std::uint64_t b = a + 1 + rng() % std::min<std::uint64_t>(windows - a, 4);
        const BaseRange range = window_bases(length, a, b, p);
        INFO(sampling_name(p) << " k=" << p.k << " w=" << p.window << " s=" << p.sketch_size
                              << " length=" << length << " windows " << a << ".." << b
                              << " bases " << range.begin << ".." << range.end);
        // The windows' bases and the context either side, clipped to the sequence.
        const std::uint64_t first = a * p.stride();
        const std::uint64_t end = std::min<std::uint64_t>(b * p.stride(), kmers);
        CHECK(range.begin == first - std::min(first, context));
        CHECK(range.end == std::min(end + context, kmers) - 1 + p.k);
        // Surrounded by other bases: what lies outside the range must not count.
        const std::size_t pad = max_minimizer_window + max_k;
        std::string buffer = random_dna(rng, pad) +
                             seq.substr(range.begin, range.end - range.begin) +
                             random_dna(rng, pad);
        const SequenceView view{buffer.data() + pad, range.begin, length};
        feature_t whole[max_sketch_size], from_piece[max_sketch_size];
        for (std::uint64_t w = a; w < b; ++w) {
          CAPTURE(w);
          const auto n = sketch_window(seq.data(), length, w, p, whole);
          REQUIRE(sketch_window(view, w, p, from_piece) == n);
          REQUIRE(std::vector<feature_t>(from_piece, from_piece + n) ==
                  std::vector<feature_t>(whole, whole + n));
          // The host's fast path reads the piece the same way.
          REQUIRE(sketch_window_with(view, w, p, from_piece, TableEncoder{}, FastInsert{}) == n);
          REQUIRE(std::vector<feature_t>(from_piece, from_piece + n) ==
                  std::vector<feature_t>(whole, whole + n));
        }
      }
    }
  }
}
