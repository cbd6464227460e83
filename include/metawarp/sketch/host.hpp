#pragma once
// Host-only conveniences around sketch.hpp (std containers allowed here).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "metawarp/sketch/sketch.hpp"

namespace metawarp::sketch {

namespace host_detail {

// encode_base as a table: genome and read bases are random, so the branches
// of encode_base's switch mispredict on most bases.
struct BaseTable {
  std::uint8_t code[256];
  BaseTable() : code() {
    for (int c = 0; c < 256; ++c) code[c] = encode_base(char(c));
  }
};
inline const BaseTable base_table;

// insert_smallest_distinct for a full sketch of the default size and
// h < out[last]: without data-dependent branches (hashes are random, so the
// insertion loop's exit mispredicts), in a fixed-length loop the compiler can
// vectorize. Element i of the result is out[i] below h, h at h's place,
// out[i - 1] above it.
inline constexpr std::uint32_t full_sketch = 16;
inline void insert_into_full(feature_t h, feature_t* out) {
  bool present = false;
  for (std::uint32_t i = 0; i < full_sketch; ++i) present |= out[i] == h;
  if (present) return;
  feature_t old[full_sketch];
  for (std::uint32_t i = 0; i < full_sketch; ++i) old[i] = out[i];
  out[0] = old[0] < h ? old[0] : h;
  for (std::uint32_t i = 1; i < full_sketch; ++i)
    out[i] = old[i] < h ? old[i] : (old[i - 1] > h ? old[i - 1] : h);
}

}  // namespace host_detail

// sketch_window's result for every input (tests/sketch compares them),
// faster on a CPU: a table instead of the switch (random bases mispredict its
// branches) and, for full
// sketches of the default size, a branch-free insertion. The CPU build and
// query use it; device code uses sketch_window.
struct TableEncoder {
  std::uint8_t operator()(char c) const { return host_detail::base_table.code[std::uint8_t(c)]; }
};
struct FastInsert {
  std::uint32_t operator()(feature_t h, std::uint64_t, feature_t* out, std::uint32_t n,
                           std::uint32_t s) const {
    if (n == s && h >= out[n - 1]) return n;  // the common case, decided without a call
    if (n == host_detail::full_sketch && s == host_detail::full_sketch) {
      host_detail::insert_into_full(h, out);
      return n;
    }
    return insert_smallest_distinct(h, out, n, s);
  }
};

inline std::uint32_t host_sketch_window(const char* seq, std::uint64_t length,
                                        std::uint64_t window_index, const SketchParams& p,
                                        feature_t* out) {
  return sketch_window_with(seq, length, window_index, p, out, TableEncoder{}, FastInsert{});
}
// sketch_window_positions's result, on a CPU.
inline std::uint32_t host_sketch_window_positions(const char* seq, std::uint64_t length,
                                                  std::uint64_t window_index,
                                                  const SketchParams& p, feature_t* out,
                                                  std::uint32_t* positions) {
  return sketch_window_with(seq, length, window_index, p, out, TableEncoder{},
                            PositionedInsert{positions});
}

// The names of the samplings, as `build --sampling` takes them and `info`
// shows them: "window", "scaled:C", "minimizer:W".
inline constexpr std::string_view sampling_names[] = {"window", "scaled", "minimizer"};

inline std::string sampling_name(const SketchParams& p) {
  const auto code = std::uint32_t(p.sampling);
  if (code >= std::size(sampling_names)) return "unknown (" + std::to_string(code) + ")";
  std::string name(sampling_names[code]);
  if (p.sampling != Sampling::window) name += ":" + std::to_string(p.sampling_parameter);
  return name;
}

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
