#pragma once
// Large host arrays (database indexes, lookups): backed by transparent huge
// pages where the system allows it (huge_pages.hpp says why) and first
// touched by all cores, since faulting in gigabytes (the kernel zeroes every
// page) runs at a few GB/s on one thread. Their elements are default-
// initialized (LargeVector's allocator), not value-initialized: std::vector's
// own serial zeroing of gigabytes (~4 GB/s on the device host) was the bound
// of loading a database and of the GPU build's download.
#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "metawarp/host/huge_pages.hpp"
#include "metawarp/host/parallel_for.hpp"

namespace metawarp::host {

// std::allocator, except that resize(n) and vector(n) leave trivial elements
// uninitialized (default-initialization) instead of zeroing them.
template <class T>
struct DefaultInitAllocator : std::allocator<T> {
  using value_type = T;
  DefaultInitAllocator() noexcept = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <class T>
using LargeVector = std::vector<T, DefaultInitAllocator<T>>;

// n elements whose storage is advised onto huge pages and not touched: for an
// array that is about to be overwritten entirely by several threads (a
// parallel read), whose first writes then fault its pages in on all cores.
template <class T>
LargeVector<T> make_uninitialized_large_vector(std::size_t n) {
  static_assert(std::is_trivially_default_constructible_v<T>);
  LargeVector<T> v;
  v.reserve(n);
  advise_huge_pages(v.data(), n * sizeof(T));
  v.resize(n);  // default-initialization: no writes
  return v;
}

// n zero elements, faulted in and zeroed by all cores.
template <class T>
LargeVector<T> make_large_vector(std::size_t n) {
  LargeVector<T> v = make_uninitialized_large_vector<T>(n);
  const std::size_t bytes = n * sizeof(T);
  auto* raw = reinterpret_cast<unsigned char*>(v.data());
  if (bytes > 0)  // an empty vector's data() may be null, not for memset
    parallel_ranges(bytes, parts_for(bytes, std::size_t(64) << 20),
                    [raw](std::size_t begin, std::size_t end) { std::memset(raw + begin, 0, end - begin); });
  return v;
}

}  // namespace metawarp::host
