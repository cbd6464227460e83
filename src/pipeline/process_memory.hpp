#pragma once
// The process's own memory, as the kernel counts it (/proc/self): what
// --max-memory is measured against (pipeline/query/partitioned_query.hpp).
#include <cstdint>

namespace metawarp::pipeline {

// Bytes resident now (VmRSS); 0 where /proc cannot be read.
std::uint64_t resident_bytes();
// The most bytes resident so far (VmHWM); 0 where /proc cannot be read.
std::uint64_t peak_resident_bytes();

}  // namespace metawarp::pipeline
