#include "db/host_memory.hpp"

#include <cstdint>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace metawarp::db {

void advise_huge_pages(void* data, std::size_t bytes) {
#ifdef __linux__
  constexpr std::uintptr_t huge = std::uintptr_t(2) << 20;
  const std::uintptr_t begin = (std::uintptr_t(data) + huge - 1) & ~(huge - 1);
  const std::uintptr_t end = (std::uintptr_t(data) + bytes) & ~(huge - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

}  // namespace metawarp::db
