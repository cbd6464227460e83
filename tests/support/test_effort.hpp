#pragma once
// How many rounds a randomized test runs. The sanitizer build (CI's second
// stage, METAWARP_SANITIZE) runs a quarter of each loop's rounds: ASan and
// UBSan make every round 5-20x slower, and what they look for (memory errors,
// undefined behaviour) shows on the kinds of input each loop mixes, which
// the first rounds already cover; the Release build (the README's test
// command) runs every round.
#include <algorithm>
#include <cstddef>

namespace metawarp::test {

#ifdef METAWARP_SANITIZED
inline constexpr std::size_t effort_divisor = 4;
#else
inline constexpr std::size_t effort_divisor = 1;
#endif

// `full` rounds in a Release build, a quarter (at least one) when sanitized.
constexpr int rounds(int full) {
  return std::max(1, full / static_cast<int>(effort_divisor));
}

}  // namespace metawarp::test
