#pragma once
// Large host arrays (database indexes, lookups): backed by transparent huge
// pages where the system allows it (huge_pages.hpp says why) and first
// touched by all cores, since faulting in gigabytes (the kernel zeroes every
// page) runs at a few GB/s on one thread. What stays serial is
// std::vector's own zeroing of the faulted-in pages (~4 GB/s on the device
// host), the likely bound of the GPU build's download (docs/benchmarks.md).
#include <cstddef>
#include <cstring>
#include <vector>

#include "metawarp/host/huge_pages.hpp"
#include "metawarp/host/parallel_for.hpp"

namespace metawarp::host {

// std::vector<T>(n), value-initialized, with its storage advised onto huge
// pages and faulted in by all cores before the (then cheap) initialization.
template <class T>
std::vector<T> make_large_vector(std::size_t n) {
  std::vector<T> v;
  v.reserve(n);
  const std::size_t bytes = n * sizeof(T);
  advise_huge_pages(v.data(), bytes);
  // The reserved storage is raw memory until resize() constructs the
  // elements; writing its bytes first only moves the page faults here.
  auto* raw = reinterpret_cast<unsigned char*>(v.data());
  if (bytes > 0)  // an empty vector's data() may be null, not for memset
    parallel_ranges(bytes, parts_for(bytes, std::size_t(64) << 20),
                    [raw](std::size_t begin, std::size_t end) { std::memset(raw + begin, 0, end - begin); });
  v.resize(n);
  return v;
}

}  // namespace metawarp::host
