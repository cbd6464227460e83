#pragma once
// An array held in parts, one after another (the features, list offsets or
// locations of an index whose shards own contiguous feature ranges,
// feature_range.hpp): which pieces of which parts a range of the whole
// covers. The GPU build's index left on its shards is read this way while
// the file is written (src/pipeline/gpu/device_index.hpp). Host only.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "metawarp/config.hpp"

namespace metawarp::index {

// `count` elements of part `part` from its element `first`, at position `at`
// of the range asked for.
struct PartPiece {
  std::size_t part = 0;
  std::uint64_t first = 0;
  std::uint64_t count = 0;
  std::uint64_t at = 0;
};

class PartRanges {
 public:
  PartRanges() : starts_(1, 0) {}
  // The parts' sizes in elements, in order (empty parts allowed).
  explicit PartRanges(const std::vector<std::uint64_t>& sizes) : starts_(1, 0) {
    for (const std::uint64_t n : sizes) starts_.push_back(starts_.back() + n);
  }

  std::size_t parts() const { return starts_.size() - 1; }
  std::uint64_t total() const { return starts_.back(); }
  // Where part p starts in the whole.
  std::uint64_t start(std::size_t p) const { return starts_.at(p); }

  // Calls f(PartPiece) for the pieces of elements [first, first + n) of the
  // whole, in order, skipping empty parts; nothing for n = 0. Throws
  // std::out_of_range beyond total().
  template <class F>
  void for_each_piece(std::uint64_t first, std::uint64_t n, F f) const {
    if (first > total() || n > total() - first)
      throw std::out_of_range("elements " + std::to_string(first) + "+" + std::to_string(n) +
                              " of an array of " + std::to_string(total()));
    // The last part starting at or before `first` (the first of equal starts
    // is empty, so upper_bound skips it).
    std::size_t p = std::size_t(std::upper_bound(starts_.begin(), starts_.end(), first) -
                                starts_.begin()) - 1;
    for (std::uint64_t done = 0; done < n; ++p) {
      const std::uint64_t at = first + done;
      const std::uint64_t count = std::min(starts_[p + 1] - at, n - done);
      if (count == 0) continue;  // an empty part
      f(PartPiece{p, at - starts_[p], count, done});
      done += count;
    }
  }

 private:
  std::vector<std::uint64_t> starts_;  // parts() + 1 prefix sums
};

}  // namespace metawarp::index
