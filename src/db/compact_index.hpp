#pragma once
// The compact index of format version 4 (docs/database-format.md): per
// feature the length of its list ("counts", 1, 2 or 4 bytes as the cap
// needs) instead of 8-byte offsets, and each location as its global window
// id (4 bytes while the ids fit 32 bits, else 8) instead of (target u32,
// window u32): the layout the GPU query keeps in memory. The writers
// (save, PartWriter) and the readers (load, PartialDatabase) encode and
// decode through these functions only, element by element, so that any
// checksum chunk (a multiple of every width) is encoded or decoded alone.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "db/database.hpp"

namespace metawarp::db::compact {

// Bytes per list length: the smallest of 1, 2 and 4 that holds `cap`.
std::uint32_t count_width(std::uint32_t cap);
// Bytes per location: 4 while every global window id fits 32 bits, else 8.
std::uint32_t location_width(std::uint64_t total_windows);

// Global window ids: target t's window w is window_base[t] + w, window_base
// the prefix sum of the targets' window counts in target order, so the ids
// keep the (target, window) order of a list.
class WindowIds {
 public:
  explicit WindowIds(std::span<const Target> targets);
  std::uint64_t total() const { return base_.back(); }
  std::uint64_t id(Location l) const { return base_[l.target] + l.window; }
  // The location of an id below total(): a coarse table says which target
  // holds the first id of its bucket, the next targets are stepped through
  // (a bucket holds a quarter of the mean target's windows).
  Location location(std::uint64_t id) const {
    std::uint32_t t = coarse_[id >> shift_];
    while (base_[t + 1] <= id) ++t;
    return Location{t, std::uint32_t(id - base_[t])};
  }

 private:
  std::vector<std::uint64_t> base_;     // targets + 1 entries
  std::vector<std::uint32_t> coarse_;   // per bucket of 2^shift_ ids
  unsigned shift_ = 0;
};

// offsets[i + 1] - offsets[i] for features [first, first + n), `width` bytes
// each (little-endian), at `out`.
void encode_counts(const std::uint64_t* offsets, std::size_t first, std::size_t n,
                   std::uint32_t width, char* out);
// The n counts at `in` summed (to check them against the locations).
std::uint64_t sum_counts(const char* in, std::size_t n, std::uint32_t width);
// The largest of the n counts at `in`.
std::uint64_t longest_count(const char* in, std::size_t n, std::uint32_t width);
// offsets (n + 1 entries) from the n counts at `counts`: offsets[0] = `start`,
// each next one the previous plus a count; on up to `threads` threads (0:
// all cores).
void offsets_from_counts(const char* counts, std::size_t n, std::uint32_t width,
                         std::uint64_t start, std::uint64_t* offsets, unsigned threads);

void encode_locations(const Location* in, std::size_t n, const WindowIds& ids,
                      std::uint32_t width, char* out);
// Decodes n ids into locations; returns the position of the first id at or
// above ids.total() (it is not decoded, nor anything after it), or n.
std::size_t decode_locations(const char* in, std::size_t n, const WindowIds& ids,
                             std::uint32_t width, Location* out);
// The element at position i of `in`, `width` bytes (an id, a count).
std::uint64_t element_at(const char* in, std::size_t i, std::uint32_t width);

}  // namespace metawarp::db::compact
