#pragma once
// Large host arrays of the index, backed by transparent huge pages where the
// system allows it (see metawarp/host/huge_pages.hpp for why), and first
// touched by all cores: faulting in gigabytes (the kernel zeroes every page)
// runs at a few GB/s on one thread. What stays serial is std::vector's own
// zeroing of the faulted-in pages (~4 GB/s on the device host), the likely
// bound of the GPU build's download (docs/benchmarks.md).
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <thread>
#include <vector>

#include "metawarp/host/huge_pages.hpp"

namespace metawarp::db {

// Runs f(begin, end) on `parts` contiguous, about equal ranges of [0, n) at
// once, one thread each (the calling thread takes the first).
template <class F>
void in_parallel(std::size_t n, std::size_t parts, F f) {
  parts = std::max<std::size_t>(parts, 1);
  std::vector<std::jthread> threads;
  for (std::size_t p = 1; p < parts; ++p)
    threads.emplace_back([&f, n, p, parts] { f(n * p / parts, n * (p + 1) / parts); });
  f(std::size_t(0), n / parts);
}

// How many parts of at least `min_part` elements [0, n) splits into, one per core at most.
inline std::size_t parts_for(std::size_t n, std::size_t min_part) {
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  return std::clamp<std::size_t>(n / std::max<std::size_t>(min_part, 1), 1, cores);
}

// std::vector<T>(n), value-initialized, with its storage advised onto huge
// pages and faulted in by all cores before the (then cheap) initialization.
template <class T>
std::vector<T> make_large_vector(std::size_t n) {
  std::vector<T> v;
  v.reserve(n);
  const std::size_t bytes = n * sizeof(T);
  host::advise_huge_pages(v.data(), bytes);
  // The reserved storage is raw memory until resize() constructs the
  // elements; writing its bytes first only moves the page faults here.
  auto* raw = reinterpret_cast<unsigned char*>(v.data());
  if (bytes > 0)  // an empty vector's data() may be null, not for memset
    in_parallel(bytes, parts_for(bytes, std::size_t(64) << 20),
                [raw](std::size_t begin, std::size_t end) { std::memset(raw + begin, 0, end - begin); });
  v.resize(n);
  return v;
}

}  // namespace metawarp::db
