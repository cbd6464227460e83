#pragma once
// The process's own memory, as the kernel counts it (/proc/self): what
// --max-memory is measured against (pipeline/query/partitioned_query.hpp);
// and what the system has available, for what a query may keep.
#include <cstdint>

namespace metawarp::pipeline {

// Bytes resident now (VmRSS); 0 where /proc cannot be read.
std::uint64_t resident_bytes();
// The most bytes resident so far (VmHWM); 0 where /proc cannot be read.
std::uint64_t peak_resident_bytes();
// The memory the system could give without swapping (MemAvailable of
// /proc/meminfo: free memory and reclaimable caches); 0 where it cannot be read.
std::uint64_t available_memory_bytes();

}  // namespace metawarp::pipeline
