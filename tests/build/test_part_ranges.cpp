// A range of an array held in parts (index/part_ranges.hpp) as pieces of the
// parts: against the array concatenated, for every range of parts with empty
// ones among them.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "catch.hpp"
#include "metawarp/index/part_ranges.hpp"

using namespace metawarp;

namespace {

// Element i of part p holds 1000 * p + i; the pieces of [first, first + n)
// are gathered into what the concatenation holds there.
std::vector<std::uint64_t> gather(const index::PartRanges& ranges, std::uint64_t first,
                                  std::uint64_t n) {
  std::vector<std::uint64_t> out(n, ~std::uint64_t(0));
  std::uint64_t expected_at = 0;
  ranges.for_each_piece(first, n, [&](const index::PartPiece& piece) {
    CHECK(piece.count > 0);
    CHECK(piece.at == expected_at);  // in order, no gap, no overlap
    CHECK(piece.first + piece.count <= ranges.start(piece.part + 1) - ranges.start(piece.part));
    for (std::uint64_t i = 0; i < piece.count; ++i)
      out[piece.at + i] = 1000 * piece.part + piece.first + i;
    expected_at += piece.count;
  });
  CHECK(expected_at == n);
  return out;
}

}  // namespace

TEST_CASE("part ranges: every range of the whole maps onto the parts' pieces in order") {
  for (const std::vector<std::uint64_t>& sizes :
       {std::vector<std::uint64_t>{5}, {3, 4}, {0, 3, 0, 0, 4, 1, 0}, {1, 1, 1}, {0, 0}, {}}) {
    const index::PartRanges ranges(sizes);
    CAPTURE(sizes);
    std::vector<std::uint64_t> whole;
    for (std::size_t p = 0; p < sizes.size(); ++p)
      for (std::uint64_t i = 0; i < sizes[p]; ++i) whole.push_back(1000 * p + i);
    REQUIRE(ranges.parts() == sizes.size());
    REQUIRE(ranges.total() == whole.size());
    for (std::uint64_t first = 0; first <= whole.size(); ++first)
      for (std::uint64_t n = 0; first + n <= whole.size(); ++n) {
        CAPTURE(first, n);
        const std::vector<std::uint64_t> expected(whole.begin() + first, whole.begin() + first + n);
        CHECK(gather(ranges, first, n) == expected);
      }
  }
}

TEST_CASE("part ranges: a part's start is its first element's place in the whole") {
  const index::PartRanges ranges({0, 3, 0, 4});
  CHECK(ranges.start(0) == 0);
  CHECK(ranges.start(1) == 0);
  CHECK(ranges.start(2) == 3);
  CHECK(ranges.start(3) == 3);
  CHECK(ranges.start(4) == 7);
}

TEST_CASE("part ranges: a range beyond the whole is refused") {
  const index::PartRanges ranges({2, 3});
  CHECK_THROWS_AS(ranges.for_each_piece(4, 2, [](const index::PartPiece&) {}), std::out_of_range);
  CHECK_THROWS_AS(ranges.for_each_piece(6, 0, [](const index::PartPiece&) {}), std::out_of_range);
  int calls = 0;
  ranges.for_each_piece(5, 0, [&](const index::PartPiece&) { ++calls; });
  CHECK(calls == 0);
}
