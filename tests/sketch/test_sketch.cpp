// The sketcher against a brute-force reference: string k-mers, naive reverse
// complement, std::set of hashes per window.
#include <algorithm>
#include <cctype>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "catch.hpp"
#include "metawarp/sketch/host.hpp"
#include "metawarp/sketch/sketch.hpp"

using namespace metawarp::sketch;

namespace {

// Reference: pack an upper-case ACGT string, first base highest.
kmer_t naive_pack(const std::string& s) {
  kmer_t x = 0;
  for (char c : s) x = (x << 2) | kmer_t(std::string("ACGT").find(c));
  return x;
}

std::string naive_revcomp(const std::string& s) {
  std::string r(s.rbegin(), s.rend());
  for (char& c : r) c = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : 'A';
  return r;
}

// nullopt-like: empty string when the k-mer has a non-ACGT base.
std::string naive_canonical(const std::string& seq, std::size_t pos, std::size_t k) {
  std::string s = seq.substr(pos, k);
  for (char& c : s) {
    c = char(std::toupper(static_cast<unsigned char>(c)));
    if (c != 'A' && c != 'C' && c != 'G' && c != 'T') return {};
  }
  // Lexicographic order on ACGT equals numeric order of the packed value.
  return std::min(s, naive_revcomp(s));
}

std::vector<feature_t> naive_window(const std::string& seq, std::uint64_t wi,
                                    const SketchParams& p) {
  std::set<feature_t> hashes;
  if (seq.size() < p.k) return {};
  const std::uint64_t starts = seq.size() - p.k + 1;
  const std::uint64_t begin = wi * p.stride();
  const std::uint64_t end = std::min<std::uint64_t>(begin + p.stride(), starts);
  for (std::uint64_t pos = begin; pos < end; ++pos) {
    const std::string c = naive_canonical(seq, pos, p.k);
    if (!c.empty()) hashes.insert(hash_kmer(naive_pack(c)));
  }
  std::vector<feature_t> out(hashes.begin(), hashes.end());
  if (out.size() > p.sketch_size) out.resize(p.sketch_size);
  return out;
}

// Random DNA with runs of N, other IUPAC codes and lower-case stretches.
std::string random_sequence(std::mt19937_64& rng, std::size_t length) {
  const char* bases = "ACGT";
  std::string s(length, 'A');
  std::uniform_int_distribution<int> base(0, 3), roll(0, 999);
  for (std::size_t i = 0; i < length; ++i) {
    s[i] = bases[base(rng)];
    const int r = roll(rng);
    if (r < 3) {  // a run of N
      const std::size_t run = 1 + rng() % 40;
      for (std::size_t j = 0; j < run && i < length; ++j, ++i) s[i] = 'N';
      if (i < length) s[i] = bases[base(rng)];
    } else if (r < 5) {
      s[i] = "RYKMSWn-"[rng() % 8];
    } else if (r < 15) {  // a lower-case stretch
      const std::size_t run = 1 + rng() % 60;
      for (std::size_t j = 0; j < run && i < length; ++j, ++i) s[i] = "acgt"[base(rng)];
      if (i < length) s[i] = bases[base(rng)];
    }
  }
  return s;
}

}  // namespace

TEST_CASE("encoding is 2-bit, case-insensitive, everything else invalid") {
  CHECK(encode_base('A') == 0);
  CHECK(encode_base('c') == 1);
  CHECK(encode_base('G') == 2);
  CHECK(encode_base('t') == 3);
  for (int c = 0; c < 256; ++c) {
    const char ch = char(c);
    const bool acgt = std::string("ACGTacgt").find(ch) != std::string::npos && c != 0;
    CHECK((encode_base(ch) != invalid_base) == acgt);
  }
}

TEST_CASE("reverse complement and canonical k-mer match the string reference") {
  std::mt19937_64 rng(7);
  for (std::uint32_t k = 1; k <= 32; ++k) {
    for (int rep = 0; rep < 50; ++rep) {
      std::string s(k, 'A');
      for (char& c : s) c = "ACGT"[rng() % 4];
      const kmer_t x = naive_pack(s);
      REQUIRE(reverse_complement(x, k) == naive_pack(naive_revcomp(s)));
      REQUIRE(canonical_kmer(x, k) == naive_pack(std::min(s, naive_revcomp(s))));
      REQUIRE((x & ~kmer_mask(k)) == 0);
    }
  }
}

TEST_CASE("window_count edge cases") {
  SketchParams p;
  p.k = 16;
  p.window = 127;  // stride 112
  CHECK(window_count(0, p) == 0);
  CHECK(window_count(15, p) == 0);
  CHECK(window_count(16, p) == 1);
  CHECK(window_count(127, p) == 1);
  CHECK(window_count(128, p) == 2);  // 113 k-mers, stride 112
  CHECK(window_count(16 + 112 * 5 - 1, p) == 5);
  CHECK(window_count(16 + 112 * 5, p) == 6);
  p.k = 1;
  p.window = 1;  // stride 1: one window per base
  CHECK(window_count(0, p) == 0);
  CHECK(window_count(1, p) == 1);
  CHECK(window_count(1000, p) == 1000);
  p.k = 32;
  p.window = 32;  // stride 1: one window per k-mer
  CHECK(window_count(31, p) == 0);
  CHECK(window_count(32, p) == 1);
  CHECK(window_count(100, p) == 69);
  // Lengths near 2^64 (a hand-made database's): no wrap-around to 0.
  p.window = 127;  // stride 96
  CHECK(window_count(~std::uint64_t(0), p) == (~std::uint64_t(0) - 31) / 96 + 1);
  p.k = 1;
  p.window = 1;
  CHECK(window_count(~std::uint64_t(0), p) == ~std::uint64_t(0));
}

TEST_CASE("every k-mer start belongs to exactly one window") {
  for (std::uint32_t k : {1u, 5u, 16u, 31u, 32u}) {
    for (std::uint32_t w : {k, k + 1, k + 10, 127u + k}) {
      SketchParams p{k, w, 16};
      for (std::uint64_t length : {0ull, 1ull, 31ull, 32ull, 33ull, 200ull, 1000ull}) {
        const std::uint64_t windows = window_count(length, p);
        const std::uint64_t starts = length >= k ? length - k + 1 : 0;
        std::vector<int> owner(starts, 0);
        for (std::uint64_t wi = 0; wi < windows; ++wi) {
          const std::uint64_t b = wi * p.stride();
          const std::uint64_t e = std::min<std::uint64_t>(b + p.stride(), starts);
          REQUIRE(b < e);  // no empty window
          for (std::uint64_t s = b; s < e; ++s) ++owner[s];
        }
        for (int o : owner) REQUIRE(o == 1);
      }
    }
  }
}

TEST_CASE("parameter validation") {
  std::string why;
  CHECK(valid(SketchParams{}, &why));
  CHECK(valid(SketchParams{1, 1, 1}));
  CHECK(valid(SketchParams{32, 32, 64}));
  CHECK_FALSE(valid(SketchParams{0, 10, 16}, &why));
  CHECK(why.find("k") != std::string::npos);
  CHECK_FALSE(valid(SketchParams{33, 100, 16}));
  CHECK_FALSE(valid(SketchParams{16, 15, 16}, &why));
  CHECK(why.find("w") != std::string::npos);
  CHECK_FALSE(valid(SketchParams{16, 127, 0}));
  CHECK_FALSE(valid(SketchParams{16, 127, 65}, &why));
  CHECK(why.find("s") != std::string::npos);
  // The longest window, and one past it (a hand-made database said 2^32 - 1).
  CHECK(valid(SketchParams{16, max_window, 16}));
  CHECK_FALSE(valid(SketchParams{16, max_window + 1, 16}, &why));
  CHECK(why == "w (window length) is 16777217: must be between k (16) and 16777216");
  CHECK_FALSE(valid(SketchParams{16, 0xffffffffu, 16}));
}

TEST_CASE("window sketches equal the brute-force reference") {
  std::mt19937_64 rng(12345);
  struct Case { std::uint32_t k, w, s; };
  std::vector<Case> cases;
  for (std::uint32_t k = 1; k <= 32; ++k) {
    cases.push_back({k, k, 1 + k % 8});
    cases.push_back({k, k + 1 + std::uint32_t(rng() % 50), std::uint32_t(1 + rng() % 64)});
  }
  cases.push_back({16, 127, 16});
  cases.push_back({32, 200, 64});
  cases.push_back({4, 300, 64});  // few distinct 4-mers: sketches shorter than s
  for (const Case& c : cases) {
    const SketchParams p{c.k, c.w, c.s};
    REQUIRE(valid(p));
    for (std::size_t length : {std::size_t(0), std::size_t(c.k - 1), std::size_t(c.k),
                               std::size_t(c.w - 1), std::size_t(c.w), std::size_t(c.w + 1),
                               std::size_t(700 + rng() % 300)}) {
      const std::string seq = random_sequence(rng, length);
      const auto sketches = sketch_all_windows(seq, p);
      REQUIRE(sketches.size() == window_count(length, p));
      for (std::uint64_t wi = 0; wi < sketches.size(); ++wi) {
        INFO("k=" << c.k << " w=" << c.w << " s=" << c.s << " length=" << length
                  << " window=" << wi);
        REQUIRE(sketches[wi] == naive_window(seq, wi, p));
      }
      // Past the last window there is nothing.
      feature_t buffer[max_sketch_size];
      REQUIRE(sketch_window(seq.data(), seq.size(), sketches.size(), p, buffer) == 0);
    }
  }
}

TEST_CASE("sketches ignore case and skip k-mers across invalid bases") {
  const SketchParams p{8, 40, 64};
  std::mt19937_64 rng(3);
  std::string upper(200, 'A');
  for (char& c : upper) c = "ACGT"[rng() % 4];
  std::string lower = upper;
  for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
  CHECK(sketch_all_windows(upper, p) == sketch_all_windows(lower, p));

  const std::string all_n(100, 'N');
  for (const auto& s : sketch_all_windows(all_n, p)) CHECK(s.empty());

  // A sequence and its reverse complement have the same set of canonical
  // k-mers, so one window spanning everything gives the same sketch.
  const SketchParams whole{8, 200, 64};
  std::string rc = naive_revcomp(upper);
  CHECK(sketch_all_windows(upper, whole) == sketch_all_windows(rc, whole));
}

TEST_CASE("batched sketch_windows matches per-window sketches") {
  const SketchParams p{12, 60, 10};
  std::mt19937_64 rng(99);
  const std::string seq = random_sequence(rng, 2000);
  const auto windows = sketch_all_windows(seq, p);
  std::vector<feature_t> out(windows.size() * p.sketch_size);
  std::vector<std::uint32_t> sizes(windows.size());
  const std::uint64_t total =
      sketch_windows(seq.data(), seq.size(), 0, windows.size(), p, out.data(), sizes.data());
  std::uint64_t expected_total = 0;
  for (std::size_t j = 0; j < windows.size(); ++j) {
    REQUIRE(sizes[j] == windows[j].size());
    REQUIRE(std::equal(windows[j].begin(), windows[j].end(), out.begin() + j * p.sketch_size));
    expected_total += sizes[j];
  }
  CHECK(total == expected_total);
}

TEST_CASE("host_sketch_window equals sketch_window") {
  // Every byte value, N runs, lower case; the default sketch size (its
  // branch-free path) and others; sequences short and long.
  std::mt19937_64 rng(777);
  for (const SketchParams p : {SketchParams{16, 127, 16}, SketchParams{16, 40, 16},
                               SketchParams{31, 64, 16}, SketchParams{12, 60, 8},
                               SketchParams{5, 20, 3}, SketchParams{32, 200, 64}}) {
    for (std::size_t length : {std::size_t(0), std::size_t(p.k), std::size_t(3000)}) {
      std::string seq = random_sequence(rng, length);
      for (std::size_t i = 0; i < seq.size(); i += 1 + rng() % 97) {
        if (rng() % 3 == 0) seq[i] = char(rng() % 256);          // any byte
        else if (rng() % 2 == 0) seq[i] = char(std::tolower(seq[i]));
        else seq.replace(i, std::min<std::size_t>(seq.size() - i, rng() % 20), rng() % 20, 'N');
      }
      seq.resize(length, 'A');
      feature_t expected[max_sketch_size], got[max_sketch_size];
      for (std::uint64_t w = 0; w <= window_count(seq.size(), p); ++w) {
        INFO("k=" << p.k << " w=" << p.window << " s=" << p.sketch_size << " window=" << w);
        const auto n = sketch_window(seq.data(), seq.size(), w, p, expected);
        REQUIRE(host_sketch_window(seq.data(), seq.size(), w, p, got) == n);
        REQUIRE(std::vector<feature_t>(got, got + n) == std::vector<feature_t>(expected, expected + n));
      }
    }
  }
}
