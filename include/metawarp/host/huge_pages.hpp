#pragma once
// Transparent huge pages for large host arrays. First touching gigabytes page
// by page (4 KiB faults, the kernel zeroing each page) costs more than filling
// them, and arrays probed at random miss the TLB on nearly every access with
// 4 KiB pages. Shared by the db and io modules.
#include <cstddef>
#include <cstdint>

#ifdef __linux__
#include <sys/mman.h>
#endif

#include "metawarp/config.hpp"

namespace metawarp::host {

inline constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;

// Asks for huge pages on the whole huge pages inside [data, data + bytes).
// A hint only; it must come before the memory is first touched to matter.
inline void advise_huge_pages(void* data, std::size_t bytes) {
#ifdef __linux__
  const std::uintptr_t begin =
      (std::uintptr_t(data) + huge_page_bytes - 1) & ~std::uintptr_t(huge_page_bytes - 1);
  const std::uintptr_t end = (std::uintptr_t(data) + bytes) & ~std::uintptr_t(huge_page_bytes - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

}  // namespace metawarp::host
