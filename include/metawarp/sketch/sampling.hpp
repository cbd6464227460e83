#pragma once
// Content-defined sampling: which k-mers become features, decided by the
// k-mers themselves, so that a k-mer shared by a read and a genome (or two
// genomes) is kept in all of them or in none (issue 26). Compiled unchanged
// for host and device, like sketch.hpp, which applies these rules per window.
#include <cstdint>

#include "metawarp/config.hpp"
#include "metawarp/sketch/types.hpp"

namespace metawarp::sketch {

// Bounds of SketchParams::sampling_parameter. A minimizer window of W k-mers
// needs a queue of W entries per sketching thread (device local memory).
inline constexpr std::uint32_t max_scale = 65535;
inline constexpr std::uint32_t max_minimizer_window = 128;

// What `metawarp build` samples unless told (chosen on the figures of
// docs/accuracy.md, "Content-defined sampling"): minimizers of 16 k-mers.
inline constexpr Sampling default_sampling = Sampling::minimizer;
inline constexpr std::uint32_t default_sampling_parameter = 16;

// The parameters a build uses with `sampling` for those not given. Minhash
// windows: MetaCache's k 16, w 127, s 16 (the databases before issue 26).
// Content-defined sampling: k 20 (a random 20-mer is in 260 Mbp of genomes
// once in 2,000; a 16-mer once in 10, so shuffled reads found real k-mers),
// and s only a cap (a window keeps all its sampled k-mers up to s): the
// largest, so that it is rarely reached.
METAWARP_HD_INLINE SketchParams default_sketch_params(Sampling sampling,
                                                      std::uint32_t parameter) {
  if (sampling == Sampling::window) return SketchParams{16, 127, 16, Sampling::window, 0};
  return SketchParams{20, 127, max_sketch_size, sampling, parameter};
}

// FracMinHash with scale c keeps the k-mers whose hash h (hash_kmer) has
// h * c < 2^32, i.e. h < 2^32 / c: h below this limit. Sampling::window keeps every k-mer
// as a candidate (the limit 2^32 excludes nothing); minimizers do not use it.
METAWARP_HD_INLINE std::uint64_t scaled_limit(const SketchParams& p) {
  constexpr std::uint64_t space = std::uint64_t(1) << 32;
  if (p.sampling != Sampling::scaled || p.sampling_parameter == 0) return space;
  return (space + p.sampling_parameter - 1) / p.sampling_parameter;
}

// The expected share of a sequence's k-mer positions that are features
// (random sequence, before the cap s): s of a window's stride for minhash,
// 1/c for FracMinHash, 2/(W+1) for minimizers.
METAWARP_HD_INLINE double sampling_density(const SketchParams& p) {
  switch (p.sampling) {
    case Sampling::scaled: return 1.0 / double(p.sampling_parameter);
    case Sampling::minimizer: return 2.0 / (double(p.sampling_parameter) + 1.0);
    case Sampling::window: break;
  }
  const double stride = double(p.stride());
  return (double(p.sketch_size) < stride ? double(p.sketch_size) : stride) / stride;
}

// The features a window holds on average: its stride's sampled k-mers, at
// most s (exactly s for minhash windows, whatever their length).
METAWARP_HD_INLINE double expected_window_features(const SketchParams& p) {
  if (p.sampling == Sampling::window) return double(p.sketch_size);
  const double sampled = double(p.stride()) * sampling_density(p);
  return sampled < double(p.sketch_size) ? sampled : double(p.sketch_size);
}

// Sliding-window minimum over consecutive k-mer positions: a queue of
// (position, order, feature) with non-decreasing orders (hash_kmer), the
// oldest first. A window's minimum is the front; orders equal to it follow
// it. At most W entries (the positions of one window), so a fixed ring of
// max_minimizer_window suffices.
class MinimizerQueue {
 public:
  METAWARP_HD_INLINE bool empty() const { return head_ == tail_; }
  METAWARP_HD_INLINE std::uint32_t size() const { return tail_ - head_; }
  // Entry i from the front (i < size()).
  METAWARP_HD_INLINE std::uint64_t position(std::uint32_t i) const {
    return base_ + offset_[(head_ + i) & mask];
  }
  METAWARP_HD_INLINE feature_t order(std::uint32_t i) const { return order_[(head_ + i) & mask]; }
  METAWARP_HD_INLINE feature_t feature(std::uint32_t i) const {
    return feature_[(head_ + i) & mask];
  }

  // Positions are pushed in increasing order, from `base` on (reset first).
  METAWARP_HD_INLINE void reset(std::uint64_t base) {
    base_ = base;
    head_ = tail_ = 0;
  }
  // A larger order behind a smaller (or equal) newer one can never be a
  // window's minimum again.
  METAWARP_HD_INLINE void push(std::uint64_t position, feature_t order, feature_t feature) {
    while (!empty() && order_[(tail_ - 1) & mask] > order) --tail_;
    offset_[tail_ & mask] = std::uint32_t(position - base_);
    order_[tail_ & mask] = order;
    feature_[tail_ & mask] = feature;
    ++tail_;
  }
  // Drops the entries before `first` (the window now starts there).
  METAWARP_HD_INLINE void drop_before(std::uint64_t first) {
    while (!empty() && position(0) < first) ++head_;
  }

 private:
  static constexpr std::uint32_t mask = max_minimizer_window - 1;
  static_assert((max_minimizer_window & mask) == 0, "the ring's size is a power of two");
  std::uint64_t base_ = 0;
  std::uint32_t head_ = 0, tail_ = 0;  // counters; ring index = counter & mask
  std::uint32_t offset_[max_minimizer_window];  // position - base (< stride + 2 W)
  feature_t order_[max_minimizer_window];
  feature_t feature_[max_minimizer_window];
};

}  // namespace metawarp::sketch
