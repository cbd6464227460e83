// Plain C++, no GPU: the portable map's host path and a minhash sketch, from
// a .cpp file compiled by the host compiler. Exit status 0 when every answer
// is right.
#include <cstdint>
#include <cstdio>
#include <string>

#include "metawarp/sketch/host.hpp"
#include "metawarp/tables/portable_map.hpp"

int main() {
  metawarp::tables::PortableMap<std::uint32_t, std::uint32_t> map;
  for (std::uint32_t key = 1; key <= 1000; ++key) map.insert(key, key * 3);
  const bool mapped = map.find(500) == 1500u && !map.contains(5000) && map.size() == 1000;

  // 500 pseudo-random bases: their windows of 127 bases each keep the 16
  // smallest of over a hundred distinct k-mer hashes.
  std::string bases;
  std::uint32_t state = 1;
  for (int i = 0; i < 500; ++i) bases += "ACGT"[(state = state * 1664525u + 1013904223u) >> 30];
  const metawarp::sketch::SketchParams params;  // k 16, w 127, s 16
  const auto windows = metawarp::sketch::sketch_all_windows(bases, params);
  bool sketched = windows.size() == metawarp::sketch::window_count(bases.size(), params);
  for (const auto& sketch : windows) sketched &= sketch.size() == params.sketch_size;

  std::printf("host_map: map %s, %zu windows sketched %s\n", mapped ? "right" : "WRONG",
              windows.size(), sketched ? "right" : "WRONG");
  return mapped && sketched ? 0 : 1;
}
