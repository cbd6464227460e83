#pragma once
// Minhash window sketches, compiled unchanged for host and device:
// no std containers, no exceptions, no allocation.
//
// A sequence of length L is cut into windows of w bases with stride w-k+1,
// so window i holds the k-mers starting at [i*stride, min((i+1)*stride, L-k+1)):
// every k-mer start belongs to exactly one window. A window's sketch is the s
// smallest DISTINCT hashes of its canonical k-mers (k-mers with a non-ACGT base
// are skipped), in ascending order.
#include <cstdint>
#include <string>

#include "metawarp/config.hpp"
#include "metawarp/sketch/encoding.hpp"
#include "metawarp/sketch/hash.hpp"
#include "metawarp/sketch/kmer.hpp"
#include "metawarp/sketch/types.hpp"

namespace metawarp::sketch {

// Number of windows of a sequence: 0 if it is shorter than k, else
// ceil((length - k + 1) / stride). The last window may hold fewer k-mers.
// Exact for any length (a database's target length is checked with it).
METAWARP_HD_INLINE std::uint64_t window_count(std::uint64_t length, const SketchParams& p) {
  if (length < p.k) return 0;
  const std::uint64_t kmers = length - p.k + 1;
  const std::uint64_t stride = p.stride();
  return kmers / stride + (kmers % stride != 0);
}

// Checks 1 <= k <= 32, k <= w <= max_window, 1 <= s <= 64. Host only
// (std::string); `why` (optional) receives what is wrong, naming the
// parameter and its value ("w (window length) is 20: must be between k (21)
// and 16777216"): the build and a database header's check say the same.
inline bool valid(const SketchParams& p, std::string* why = nullptr) {
  const auto fail = [&](const char* name, std::uint32_t value, const std::string& range) {
    if (why) *why = std::string(name) + " is " + std::to_string(value) + ": must be between " + range;
    return false;
  };
  if (p.k < 1 || p.k > max_k) return fail("k (k-mer length)", p.k, "1 and " + std::to_string(max_k));
  if (p.window < p.k || p.window > max_window)
    return fail("w (window length)", p.window,
                "k (" + std::to_string(p.k) + ") and " + std::to_string(max_window));
  if (p.sketch_size < 1 || p.sketch_size > max_sketch_size)
    return fail("s (sketch size)", p.sketch_size, "1 and " + std::to_string(max_sketch_size));
  return true;
}

// Inserts h into the ascending, distinct array out[0..n) of capacity s,
// keeping only the s smallest values. Returns the new count.
METAWARP_HD_INLINE std::uint32_t insert_smallest_distinct(feature_t h, feature_t* out,
                                                          std::uint32_t n, std::uint32_t s) {
  if (n == s && h >= out[n - 1]) return n;  // not among the s smallest (or a duplicate of the max)
  std::uint32_t pos = n;
  while (pos > 0 && out[pos - 1] > h) --pos;
  if (pos > 0 && out[pos - 1] == h) return n;  // already present
  const std::uint32_t last = n < s ? n : s - 1;  // the old maximum falls off when full
  for (std::uint32_t i = last; i > pos; --i) out[i] = out[i - 1];
  out[pos] = h;
  return n < s ? n + 1 : n;
}

// encode_base and insert_smallest_distinct as function objects: the default
// policies of sketch_window_with.
struct SwitchEncoder {
  METAWARP_HD std::uint8_t operator()(char c) const { return encode_base(c); }
};
struct SortedInsert {
  METAWARP_HD std::uint32_t operator()(feature_t h, feature_t* out, std::uint32_t n,
                                       std::uint32_t s) const {
    return insert_smallest_distinct(h, out, n, s);
  }
};

// Writes the sketch of window `window_index` of seq[0..length) to out (room for
// p.sketch_size values, ascending, distinct) and returns its size (<= s; fewer
// when the window has fewer distinct valid k-mers, 0 past the last window).
// Rolls the forward and reverse-complement k-mers in one pass over the
// window's bases; p must be valid(). `encode` (char -> 2-bit code or
// invalid_base) and `insert` (insert_smallest_distinct's contract) are
// parameters so that the host can use faster equivalents (sketch/host.hpp);
// they must not change the result.
// (Host code instantiates it with host-only policies; nvcc must not object.)
#ifdef __CUDACC__
#pragma nv_exec_check_disable
#endif
template <class Encode, class Insert>
METAWARP_HD inline std::uint32_t sketch_window_with(const char* seq, std::uint64_t length,
                                                    std::uint64_t window_index,
                                                    const SketchParams& p, feature_t* out,
                                                    Encode encode, Insert insert) {
  const std::uint32_t k = p.k;
  if (length < k) return 0;
  const std::uint64_t kmer_starts = length - k + 1;
  const std::uint64_t first = window_index * p.stride();
  if (first >= kmer_starts) return 0;
  std::uint64_t end = first + p.stride();  // one past the last k-mer start
  if (end > kmer_starts) end = kmer_starts;

  const kmer_t mask = kmer_mask(k);
  const std::uint32_t rc_shift = 2 * (k - 1);
  kmer_t fwd = 0;
  kmer_t rev = 0;
  std::uint32_t valid_run = 0;  // consecutive valid bases ending at the current one
  std::uint32_t n = 0;
  const std::uint64_t last_base = end - 1 + k;  // one past the last base read
  for (std::uint64_t i = first; i < last_base; ++i) {
    const std::uint8_t b = encode(seq[i]);
    if (b == invalid_base) {
      valid_run = 0;
      continue;
    }
    fwd = ((fwd << 2) | b) & mask;
    rev = (rev >> 2) | (kmer_t(3 - b) << rc_shift);
    if (valid_run < k) ++valid_run;
    if (valid_run == k) {
      const kmer_t canonical = rev < fwd ? rev : fwd;
      n = insert(hash_kmer(canonical), out, n, p.sketch_size);
    }
  }
  return n;
}

// The sketch of one window (see sketch_window_with), as host and device share it.
METAWARP_HD inline std::uint32_t sketch_window(const char* seq, std::uint64_t length,
                                               std::uint64_t window_index,
                                               const SketchParams& p, feature_t* out) {
  return sketch_window_with(seq, length, window_index, p, out, SwitchEncoder{}, SortedInsert{});
}

// Sketches windows [first_window, first_window + count) of one sequence into
// out (count * s slots, window j's sketch at out + j * s) and their sizes into
// sizes[j]. Returns the total number of features written.
METAWARP_HD inline std::uint64_t sketch_windows(const char* seq, std::uint64_t length,
                                                std::uint64_t first_window, std::uint64_t count,
                                                const SketchParams& p, feature_t* out,
                                                std::uint32_t* sizes) {
  std::uint64_t total = 0;
  for (std::uint64_t j = 0; j < count; ++j) {
    sizes[j] = sketch_window(seq, length, first_window + j, p, out + j * p.sketch_size);
    total += sizes[j];
  }
  return total;
}

}  // namespace metawarp::sketch
