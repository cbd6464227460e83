#include "pipeline/process_memory.hpp"

#include <cstdio>
#include <cstring>

namespace metawarp::pipeline {
namespace {

// The value of a "Name:   1234 kB" line of a /proc file, in bytes.
std::uint64_t proc_kilobytes(const char* file, const char* name) {
  std::FILE* status = std::fopen(file, "r");
  if (!status) return 0;
  char line[256];
  unsigned long long kilobytes = 0;
  const std::size_t length = std::strlen(name);
  while (std::fgets(line, sizeof line, status))
    if (std::strncmp(line, name, length) == 0 && line[length] == ':') {
      std::sscanf(line + length + 1, "%llu", &kilobytes);
      break;
    }
  std::fclose(status);
  return std::uint64_t(kilobytes) * 1024;
}

}  // namespace

std::uint64_t resident_bytes() { return proc_kilobytes("/proc/self/status", "VmRSS"); }

std::uint64_t peak_resident_bytes() { return proc_kilobytes("/proc/self/status", "VmHWM"); }

std::uint64_t available_memory_bytes() { return proc_kilobytes("/proc/meminfo", "MemAvailable"); }

}  // namespace metawarp::pipeline
