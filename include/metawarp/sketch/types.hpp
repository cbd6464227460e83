#pragma once
// Types and parameters every part of metawarp agrees on: what a feature is,
// where it was seen (a location), and how sequences are cut into windows.
#include <cstdint>

#include "metawarp/config.hpp"

namespace metawarp::sketch {

using kmer_t = std::uint64_t;     // 2-bit packed canonical k-mer, k <= 32
using feature_t = std::uint32_t;  // hash of a canonical k-mer (a sketch entry)
using target_id_t = std::uint32_t;
using window_id_t = std::uint32_t;

inline constexpr std::uint32_t max_k = 32;
inline constexpr std::uint32_t max_sketch_size = 64;
// The longest window, 16 Mi bases: one window then holds a whole bacterial
// genome, so a longer one can only hide more of a reference in one window.
// The bound lets a database's header be checked for sanity (a hand-made one
// said 2^32 - 1) and keeps window arithmetic far from 32-bit limits.
inline constexpr std::uint32_t max_window = std::uint32_t(1) << 24;

// Which k-mers of a window are its features (sketch/sampling.hpp; stored in
// the database). The codes are part of the file format.
enum class Sampling : std::uint32_t {
  // The s smallest hashes of the window's k-mers (MetaCache's minhash): which
  // k-mers are kept depends on where the window is cut.
  window = 0,
  // Content-defined (a k-mer is kept or not wherever it occurs, in a read as
  // in every genome): FracMinHash, the k-mers whose hash is below 2^32 / c.
  scaled = 1,
  // Content-defined: (W, k)-minimizers, the smallest hash of every W
  // consecutive k-mers.
  minimizer = 2,
};

// Sketching parameters, stored in the database. Defaults as MetaCache.
struct SketchParams {
  std::uint32_t k = 16;            // k-mer length, 1..32
  std::uint32_t window = 127;      // window length w in bases, k <= w <= max_window
  // s: smallest distinct hashes kept per window; with content-defined
  // sampling a cap on the window's sampled k-mers (set so that it is rarely
  // reached: a capped window no longer keeps exactly what a read keeps).
  std::uint32_t sketch_size = 16;
  Sampling sampling = Sampling::window;
  // c of Sampling::scaled, W of Sampling::minimizer, 0 for Sampling::window.
  std::uint32_t sampling_parameter = 0;

  // Consecutive windows start w-k+1 bases apart, so they overlap by k-1 bases
  // and every k-mer start position belongs to exactly one window.
  METAWARP_HD_INLINE std::uint32_t stride() const { return window - k + 1; }
};

// One occurrence of a feature: window `window` of target `target`.
// Ordered by (target, window); this order is the database's list order.
struct Location {
  target_id_t target;
  window_id_t window;

  METAWARP_HD_INLINE std::uint64_t packed() const {
    return (std::uint64_t(target) << 32) | window;
  }
  METAWARP_HD_INLINE static Location unpack(std::uint64_t v) {
    return Location{target_id_t(v >> 32), window_id_t(v & 0xffffffffu)};
  }
  friend METAWARP_HD_INLINE bool operator<(Location a, Location b) {
    return a.packed() < b.packed();
  }
  friend METAWARP_HD_INLINE bool operator==(Location a, Location b) {
    return a.packed() == b.packed();
  }
};
static_assert(sizeof(Location) == 8);

}  // namespace metawarp::sketch
