#pragma once
// Window sketches, compiled unchanged for host and device:
// no std containers, no exceptions, no allocation.
//
// A sequence of length L is cut into windows of w bases with stride w-k+1,
// so window i holds the k-mers starting at [i*stride, min((i+1)*stride, L-k+1)):
// every k-mer start belongs to exactly one window. A window's sketch is the s
// smallest DISTINCT features of its sampled canonical k-mers (k-mers with a
// non-ACGT base are skipped), in ascending order. Which k-mers are sampled is
// SketchParams::sampling (sampling.hpp): all of them (minhash: the sketch
// depends on where the window is cut), those whose hash (hash_kmer) is below
// 2^32 / c (FracMinHash), or the minimizers (by hash_kmer) of every W
// consecutive k-mers of the whole sequence (the window's own and up to W - 1
// beyond either end). The last two keep a k-mer by its content alone: a read
// keeps exactly the sampled k-mers its source genome keeps where they overlap
// (but for windows that reach the cap s, and minimizers within W - 1 k-mers
// of a read's ends); their feature is sampled_feature (the other half of the
// hash). A minhash window's feature is hash_kmer. The whole rule, for every
// build and query path, is this file. A window's sketch depends on the
// bases window_bases names and on the sequence's length alone, so it can be
// computed from a piece of the sequence that holds them (SequenceView: the
// GPU build cuts long targets into pieces).
#include <cstdint>
#include <string>

#include "metawarp/config.hpp"
#include "metawarp/sketch/encoding.hpp"
#include "metawarp/sketch/hash.hpp"
#include "metawarp/sketch/kmer.hpp"
#include "metawarp/sketch/sampling.hpp"
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

// A sequence as the sketch rule reads it: its base i is bases[i - offset]
// for the bases the caller holds, from `offset` on (a whole sequence: offset
// 0), and `length` is the WHOLE sequence's length, which decides its windows
// and where minimizer runs are clipped. A piece must hold window_bases of
// every window it is sketched for.
struct SequenceView {
  const char* bases;
  std::uint64_t offset;  // the sequence's position of bases[0]
  std::uint64_t length;  // of the whole sequence
  METAWARP_HD_INLINE char operator[](std::uint64_t i) const { return bases[i - offset]; }
};

// The k-mer positions beyond either end of a window that its sketch may
// read: W - 1 for minimizers (the runs of W k-mers that meet the window),
// none for the others. Clipped to the sequence.
METAWARP_HD_INLINE std::uint64_t context_kmers(const SketchParams& p) {
  return p.sampling == Sampling::minimizer ? p.sampling_parameter - 1 : 0;
}

struct BaseRange {
  std::uint64_t begin, end;  // [begin, end) of the sequence
};

// The bases that the sketches of windows [first_window, end_window) of a
// sequence of `length` bases read (first_window < end_window <=
// window_count): their k-mers' bases and context_kmers(p) k-mers either
// side, clipped to the sequence. The one statement of what a window needs:
// sketch_window_with reads exactly these, and a piece of the sequence that
// holds them gives the whole sequence's sketches.
METAWARP_HD_INLINE BaseRange window_bases(std::uint64_t length, std::uint64_t first_window,
                                          std::uint64_t end_window, const SketchParams& p) {
  const std::uint64_t kmer_starts = length - p.k + 1;
  const std::uint64_t first = first_window * p.stride();
  std::uint64_t end = end_window * p.stride();  // one past the last k-mer start
  if (end > kmer_starts) end = kmer_starts;
  // A sequence of fewer than W k-mers has one run, the whole sequence.
  std::uint64_t context = context_kmers(p);
  if (context > kmer_starts - 1) context = kmer_starts - 1;
  const std::uint64_t begin = first >= context ? first - context : 0;
  end = end + context < kmer_starts ? end + context : kmer_starts;
  return BaseRange{begin, end - 1 + p.k};
}

// Checks 1 <= k <= 32, k <= w <= max_window, 1 <= s <= 64 and the sampling
// (window: parameter 0; scaled: 2 <= c <= max_scale; minimizer: 2 <= W <=
// max_minimizer_window). Host only
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
  switch (p.sampling) {
    case Sampling::window:
      if (p.sampling_parameter == 0) return true;
      if (why)
        *why = "sampling parameter is " + std::to_string(p.sampling_parameter) +
               ": window sampling takes none (0)";
      return false;
    case Sampling::scaled:
      if (p.sampling_parameter < 2 || p.sampling_parameter > max_scale)
        return fail("c (FracMinHash scale)", p.sampling_parameter,
                    "2 and " + std::to_string(max_scale));
      return true;
    case Sampling::minimizer:
      if (p.sampling_parameter < 2 || p.sampling_parameter > max_minimizer_window)
        return fail("W (minimizer window in k-mers)", p.sampling_parameter,
                    "2 and " + std::to_string(max_minimizer_window));
      return true;
  }
  if (why) *why = "sampling is " + std::to_string(std::uint32_t(p.sampling)) +
                  ": must be 0 (window), 1 (scaled) or 2 (minimizer)";
  return false;
}

// Inserts h into the ascending, distinct array out[0..n) of capacity s,
// keeping only the s smallest values. Returns the new count. With
// `positions` (parallel to out), h's k-mer start `position` goes to the same
// place, and moves with it: a value that falls off never comes back (later
// values that enter are smaller than it), so each kept feature keeps the
// position of its first insertion.
METAWARP_HD_INLINE std::uint32_t insert_smallest_distinct(feature_t h, feature_t* out,
                                                          std::uint32_t n, std::uint32_t s,
                                                          std::uint32_t* positions = nullptr,
                                                          std::uint32_t position = 0) {
  if (n == s && h >= out[n - 1]) return n;  // not among the s smallest (or a duplicate of the max)
  std::uint32_t pos = n;
  while (pos > 0 && out[pos - 1] > h) --pos;
  if (pos > 0 && out[pos - 1] == h) return n;  // already present
  const std::uint32_t last = n < s ? n : s - 1;  // the old maximum falls off when full
  for (std::uint32_t i = last; i > pos; --i) {
    out[i] = out[i - 1];
    if (positions != nullptr) positions[i] = positions[i - 1];
  }
  out[pos] = h;
  if (positions != nullptr) positions[pos] = position;
  return n < s ? n + 1 : n;
}

// encode_base and insert_smallest_distinct as function objects: the default
// policies of sketch_window_with.
struct SwitchEncoder {
  METAWARP_HD std::uint8_t operator()(char c) const { return encode_base(c); }
};
// An insert policy is called as insert(h, position, out, n, s): `position`
// is the start of the k-mer that gave h, for policies that record it.
struct SortedInsert {
  METAWARP_HD std::uint32_t operator()(feature_t h, std::uint64_t, feature_t* out,
                                       std::uint32_t n, std::uint32_t s) const {
    return insert_smallest_distinct(h, out, n, s);
  }
};
// insert_smallest_distinct that also records each kept feature's k-mer start
// in positions[] (parallel to the sketch): the read positions the
// matched-bases rule (classify/matched_bases.hpp) counts, found in the same
// pass that samples the k-mers.
struct PositionedInsert {
  std::uint32_t* positions;
  METAWARP_HD std::uint32_t operator()(feature_t h, std::uint64_t position, feature_t* out,
                                       std::uint32_t n, std::uint32_t s) const {
    return insert_smallest_distinct(h, out, n, s, positions, std::uint32_t(position));
  }
};

// Rolls the forward and reverse-complement k-mers over a run of bases, one
// base at a time: after k valid bases in a row, each base completes a k-mer.
class CanonicalRoller {
 public:
  METAWARP_HD_INLINE explicit CanonicalRoller(std::uint32_t k)
      : k_(k), mask_(kmer_mask(k)), rc_shift_(2 * (k - 1)) {}
  // Feeds the next base's 2-bit code (or invalid_base). True when the last k
  // bases form a valid k-mer; its canonical form is then in `canonical`.
  METAWARP_HD_INLINE bool push(std::uint8_t b, kmer_t& canonical) {
    if (b == invalid_base) {
      valid_run_ = 0;
      return false;
    }
    fwd_ = ((fwd_ << 2) | b) & mask_;
    rev_ = (rev_ >> 2) | (kmer_t(3 - b) << rc_shift_);
    if (valid_run_ < k_) ++valid_run_;
    if (valid_run_ < k_) return false;
    canonical = rev_ < fwd_ ? rev_ : fwd_;
    return true;
  }

 private:
  std::uint32_t k_;
  kmer_t mask_;
  std::uint32_t rc_shift_;
  kmer_t fwd_ = 0;
  kmer_t rev_ = 0;
  std::uint32_t valid_run_ = 0;  // consecutive valid bases ending at the current one
};

// The minimizer sketch of the window whose k-mers start at [first, end) of a
// sequence with `kmer_starts` k-mers, read from `bases` (window_bases): of
// every W consecutive k-mer positions [a, a + W) (inside the sequence,
// meeting the window) the k-mers of the window whose hash_kmer is the run's
// smallest are kept (as sampled_feature). W is at most the sequence's k-mer
// count (a sequence shorter than W k-mers has one run, the whole sequence).
// Positions with an invalid k-mer take part in no minimum. The same feature
// kept twice is one feature.
#ifdef __CUDACC__
#pragma nv_exec_check_disable
#endif
template <class Encode, class Insert>
METAWARP_HD inline std::uint32_t sketch_minimizers(const SequenceView& seq,
                                                   std::uint64_t kmer_starts,
                                                   std::uint64_t first, std::uint64_t end,
                                                   BaseRange bases, const SketchParams& p,
                                                   feature_t* out, Encode encode,
                                                   Insert insert) {
  const std::uint32_t k = p.k;
  std::uint64_t run = p.sampling_parameter;
  if (run > kmer_starts) run = kmer_starts;
  // The runs meeting the window start at [first - (W - 1), end): the k-mers
  // from the first run's start to the last run's end (window_bases).
  const std::uint64_t lo = bases.begin;
  MinimizerQueue queue;
  queue.reset(lo);
  CanonicalRoller roller(k);
  std::uint32_t n = 0;
  // Every entry at or before the last kept position was kept already when
  // it is a run's minimum again (the run that kept that position held it
  // too, with the same minimum): only later ones are inserted.
  std::uint64_t kept_until = 0;  // one past the last kept position
  for (std::uint64_t i = lo; i < bases.end; ++i) {
    kmer_t canonical = 0;
    const bool valid = roller.push(encode(seq[i]), canonical);
    if (i + 1 < lo + k) continue;  // no k-mer read ends at base i yet
    const std::uint64_t position = i + 1 - k;
    if (valid) queue.push(position, hash_kmer(canonical), sampled_feature(canonical));
    if (position + 1 < lo + run) continue;  // the first run is not complete yet
    queue.drop_before(position + 1 - run);  // the run [position + 1 - W, position]
    if (queue.empty()) continue;
    const feature_t m = queue.order(0);
    for (std::uint32_t j = 0; j < queue.size() && queue.order(j) == m; ++j) {
      const std::uint64_t at = queue.position(j);
      if (at < kept_until || at < first || at >= end) continue;
      n = insert(queue.feature(j), at, out, n, p.sketch_size);
      kept_until = at + 1;
    }
  }
  return n;
}

// Writes the sketch of window `window_index` of the sequence `seq` to out
// (room for p.sketch_size values, ascending, distinct) and returns its size
// (<= s; fewer when the window has fewer distinct sampled k-mers, 0 past the
// last window). Rolls the forward and reverse-complement k-mers in one pass
// over the window's bases (and, for minimizers, up to W - 1 k-mers beyond its
// ends): window_bases, which seq must hold; p must be valid(). `encode` (char
// -> 2-bit code or invalid_base) and `insert` (insert_smallest_distinct's
// contract) are parameters so that the host can use faster equivalents
// (sketch/host.hpp); they must not change the result.
// (Host code instantiates it with host-only policies; nvcc must not object.)
#ifdef __CUDACC__
#pragma nv_exec_check_disable
#endif
template <class Encode, class Insert>
METAWARP_HD inline std::uint32_t sketch_window_with(const SequenceView& seq,
                                                    std::uint64_t window_index,
                                                    const SketchParams& p, feature_t* out,
                                                    Encode encode, Insert insert) {
  const std::uint32_t k = p.k;
  if (seq.length < k) return 0;
  const std::uint64_t kmer_starts = seq.length - k + 1;
  const std::uint64_t first = window_index * p.stride();
  if (first >= kmer_starts) return 0;
  std::uint64_t end = first + p.stride();  // one past the last k-mer start
  if (end > kmer_starts) end = kmer_starts;
  const BaseRange bases = window_bases(seq.length, window_index, window_index + 1, p);
  if (p.sampling == Sampling::minimizer)
    return sketch_minimizers(seq, kmer_starts, first, end, bases, p, out, encode, insert);

  const std::uint64_t limit = scaled_limit(p);  // 2^32 (all k-mers) for minhash windows
  const bool minhash = p.sampling == Sampling::window;
  CanonicalRoller roller(k);
  std::uint32_t n = 0;
  for (std::uint64_t i = bases.begin; i < bases.end; ++i) {  // the window's own bases
    kmer_t canonical = 0;
    if (!roller.push(encode(seq[i]), canonical)) continue;
    const feature_t h = hash_kmer(canonical);
    if (h < limit)
      n = insert(minhash ? h : sampled_feature(canonical), i + 1 - k, out, n, p.sketch_size);
  }
  return n;
}

// A whole sequence seq[0..length).
#ifdef __CUDACC__
#pragma nv_exec_check_disable
#endif
template <class Encode, class Insert>
METAWARP_HD inline std::uint32_t sketch_window_with(const char* seq, std::uint64_t length,
                                                    std::uint64_t window_index,
                                                    const SketchParams& p, feature_t* out,
                                                    Encode encode, Insert insert) {
  return sketch_window_with(SequenceView{seq, 0, length}, window_index, p, out, encode, insert);
}

// The sketch of one window (see sketch_window_with), as host and device share it.
METAWARP_HD inline std::uint32_t sketch_window(const SequenceView& seq,
                                               std::uint64_t window_index,
                                               const SketchParams& p, feature_t* out) {
  return sketch_window_with(seq, window_index, p, out, SwitchEncoder{}, SortedInsert{});
}
METAWARP_HD inline std::uint32_t sketch_window(const char* seq, std::uint64_t length,
                                               std::uint64_t window_index,
                                               const SketchParams& p, feature_t* out) {
  return sketch_window(SequenceView{seq, 0, length}, window_index, p, out);
}
// sketch_window that also writes each feature's k-mer start (the first at
// which the window kept it) to positions[j] for out[j].
METAWARP_HD inline std::uint32_t sketch_window_positions(const char* seq, std::uint64_t length,
                                                         std::uint64_t window_index,
                                                         const SketchParams& p, feature_t* out,
                                                         std::uint32_t* positions) {
  return sketch_window_with(SequenceView{seq, 0, length}, window_index, p, out, SwitchEncoder{},
                            PositionedInsert{positions});
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
