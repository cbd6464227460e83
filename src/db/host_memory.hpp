#pragma once
// Large host arrays of the index, backed by transparent huge pages where the
// system allows it (see metawarp/host/huge_pages.hpp for why).
#include <cstddef>
#include <vector>

#include "metawarp/host/huge_pages.hpp"

namespace metawarp::db {

// std::vector<T>(n), value-initialized, with its storage advised onto huge pages.
template <class T>
std::vector<T> make_large_vector(std::size_t n) {
  std::vector<T> v;
  v.reserve(n);
  host::advise_huge_pages(v.data(), n * sizeof(T));
  v.resize(n);
  return v;
}

}  // namespace metawarp::db
