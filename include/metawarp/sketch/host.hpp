#pragma once
// Host-only conveniences around sketch.hpp (std containers allowed here).
#include <string_view>
#include <vector>

#include "metawarp/sketch/sketch.hpp"

namespace metawarp::sketch {

// One sketch per window, in window order (window_count(seq.size(), p) entries).
inline std::vector<std::vector<feature_t>> sketch_all_windows(std::string_view seq,
                                                              const SketchParams& p) {
  const std::uint64_t windows = window_count(seq.size(), p);
  std::vector<std::vector<feature_t>> result(windows);
  feature_t buffer[max_sketch_size];
  for (std::uint64_t w = 0; w < windows; ++w) {
    const std::uint32_t n = sketch_window(seq.data(), seq.size(), w, p, buffer);
    result[w].assign(buffer, buffer + n);
  }
  return result;
}

}  // namespace metawarp::sketch
