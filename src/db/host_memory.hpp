#pragma once
// Large host arrays: their first touch (page faults, the kernel zeroing each
// page) costs more than filling them when they hold gigabytes, so they are
// backed by transparent huge pages where the system allows it.
#include <cstddef>
#include <vector>

namespace metawarp::db {

// Asks for transparent huge pages on [data, data + bytes). A hint only; must
// come before the memory is first touched to take effect.
void advise_huge_pages(void* data, std::size_t bytes);

// std::vector<T>(n), value-initialized, with its storage advised as above.
template <class T>
std::vector<T> make_large_vector(std::size_t n) {
  std::vector<T> v;
  v.reserve(n);
  advise_huge_pages(v.data(), n * sizeof(T));
  v.resize(n);
  return v;
}

}  // namespace metawarp::db
