#pragma once
// Candidate scoring, shared unchanged by the CPU and GPU query paths: no std
// containers, no exceptions, no allocation.
//
// A read (or pair) is looked up window by window; every location (target,
// window) of every feature is a hit. A read of fragment length L can only
// touch a few consecutive windows of a target, so hits are counted per target
// over contiguous window ranges [first, first + span) and the best range of a
// target is its candidate. The top candidates across targets decide the call.
#include <cstdint>

#include "metawarp/config.hpp"
#include "metawarp/sketch/types.hpp"

namespace metawarp::classify {

using sketch::Location;
using sketch::target_id_t;
using sketch::window_id_t;

// Upper bound for --max-candidates; keeps per-read state in fixed arrays.
inline constexpr std::uint32_t max_candidates_limit = 16;

struct Candidate {
  target_id_t target = 0;
  window_id_t first_window = 0;  // window of the range's first hit
  window_id_t last_window = 0;   // window of the range's last hit
  std::uint32_t hits = 0;
};

// Strict order of candidates: more hits first, then lower target id, then
// lower first window. Total on distinct (target, first_window), so the
// result never depends on input order or thread scheduling.
METAWARP_HD_INLINE bool ranks_before(const Candidate& a, const Candidate& b) {
  if (a.hits != b.hits) return a.hits > b.hits;
  if (a.target != b.target) return a.target < b.target;
  return a.first_window < b.first_window;
}

// Number of target windows a fragment of `fragment_length` bases can touch:
// its k-mer starts cover fragment_length - k + 1 consecutive positions, which
// fall into at most floor((fragment_length - k) / stride) + 2 windows. We use
// fragment_length / stride + 2 (never smaller, simpler to state), at least 1.
METAWARP_HD_INLINE std::uint32_t window_span(std::uint64_t fragment_length,
                                             std::uint32_t stride) {
  const std::uint64_t span = fragment_length / (stride == 0 ? 1 : stride) + 2;
  return span > 0xffffffffull ? 0xffffffffu : std::uint32_t(span);
}

// The window span of a read: a single read (length2 == 0) spans its own
// length; a pair spans the larger of `insert_size` and its mates' summed
// lengths, since the mates can sit that far apart on the target.
METAWARP_HD_INLINE std::uint32_t read_window_span(std::uint64_t length1, std::uint64_t length2,
                                                  std::uint64_t insert_size, std::uint32_t stride) {
  std::uint64_t fragment = length1 + length2;
  if (length2 != 0 && insert_size > fragment) fragment = insert_size;
  return window_span(fragment, stride);
}

// A read's feature counts at most once per candidate (as Kraken2 counts a
// read's k-mers): a feature that occurs in several windows of one target (a
// repeat, or a chance k-mer met twice) must not fill a range alone. The rule
// works on one feature's location list (sorted by (target, window), as the
// database stores it), so every executor applies it where it copies the list
// and nothing about the feature has to travel with its hits: a location is
// dropped when the list's previous location lies in the same target fewer
// than `span` windows before it. The locations kept of one target are then
// at least `span` windows apart, and a range of `span` windows holds at most
// one of them.
METAWARP_HD_INLINE bool repeats_within_span(const Location& previous, const Location& location,
                                            std::uint32_t span) {
  return previous.target == location.target &&
         std::uint64_t(location.window) < std::uint64_t(previous.window) + span;
}

// Inserts c into top[0..n) (sorted by ranks_before, capacity `capacity`),
// dropping the last when full. Returns the new size.
METAWARP_HD_INLINE std::uint32_t insert_candidate(const Candidate& c, Candidate* top,
                                                  std::uint32_t n, std::uint32_t capacity) {
  if (capacity == 0) return 0;
  if (n == capacity && !ranks_before(c, top[n - 1])) return n;
  std::uint32_t pos = n < capacity ? n : capacity - 1;
  while (pos > 0 && ranks_before(c, top[pos - 1])) {
    top[pos] = top[pos - 1];
    --pos;
  }
  top[pos] = c;
  return n < capacity ? n + 1 : n;
}

// Best range of one target: `hits` are the hits of a single target, sorted by
// window (duplicates allowed: each one counts). Slides a range of `span`
// windows starting at each distinct hit window; the first (lowest) start
// with the most hits wins.
METAWARP_HD_INLINE Candidate best_range(const Location* hits, std::uint32_t n,
                                        std::uint32_t span) {
  Candidate best;
  if (n == 0) return best;
  best.target = hits[0].target;
  std::uint32_t end = 0;  // one past the last hit inside the current range
  for (std::uint32_t begin = 0; begin < n; ++begin) {
    if (begin > 0 && hits[begin].window == hits[begin - 1].window) continue;
    const std::uint64_t limit = std::uint64_t(hits[begin].window) + span;
    if (end < begin) end = begin;
    while (end < n && hits[end].window < limit) ++end;
    const std::uint32_t count = end - begin;
    if (count > best.hits) {
      best.hits = count;
      best.first_window = hits[begin].window;
      best.last_window = hits[end - 1].window;
    }
  }
  return best;
}

// The top `capacity` candidates (one per target, its best range) of all hits
// of a read, `hits` sorted by (target, window). Writes them best first into
// top and returns how many were written (<= capacity, <= distinct targets).
METAWARP_HD_INLINE std::uint32_t top_candidates(const Location* hits, std::uint32_t n,
                                                std::uint32_t span, Candidate* top,
                                                std::uint32_t capacity) {
  std::uint32_t count = 0;
  std::uint32_t run_begin = 0;
  while (run_begin < n) {
    std::uint32_t run_end = run_begin + 1;
    while (run_end < n && hits[run_end].target == hits[run_begin].target) ++run_end;
    const Candidate c = best_range(hits + run_begin, run_end - run_begin, span);
    count = insert_candidate(c, top, count, capacity);
    run_begin = run_end;
  }
  return count;
}

}  // namespace metawarp::classify
