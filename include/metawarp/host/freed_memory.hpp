#pragma once
// Freed memory kept by the process for its next allocations instead of being
// handed back to the kernel. glibc's malloc gives a thread arena's free top
// back (madvise) once it exceeds the trim threshold, which it raises only to
// twice the largest block freed; blocks above the mmap threshold are mapped
// and unmapped one by one. Either way the next block of that size is fresh
// memory, and first touching it is a page fault per 4 KiB: the build's
// readers, which take each reference record (megabytes) into a string that
// the copy threads free once it is in a GPU batch, spent most of their time
// there (tools/bench_build_input on a 2-core VM, 1 GB of 4 Mbp genomes, one
// reader: 0.16-0.17 GB/s parsed, 2.1-2.4 GB/s with this; docs/benchmarks.md).
// Blocks up to 32 MiB (glibc's largest mmap threshold) now come from the
// arenas and stay there; larger ones are still mapped on their own. The
// price: the process's resident memory does not shrink back after its peak.
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "metawarp/config.hpp"

namespace metawarp::host {

// Called once, first thing in main().
inline void keep_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);  // int: 1 GiB of free top before any is given back
#endif
}

}  // namespace metawarp::host
