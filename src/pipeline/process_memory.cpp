#include "pipeline/process_memory.hpp"

#include <cstdio>
#include <cstring>

namespace metawarp::pipeline {
namespace {

// The value of a "Name:   1234 kB" line of /proc/self/status, in bytes.
std::uint64_t status_kilobytes(const char* name) {
  std::FILE* status = std::fopen("/proc/self/status", "r");
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

std::uint64_t resident_bytes() { return status_kilobytes("VmRSS"); }

std::uint64_t peak_resident_bytes() { return status_kilobytes("VmHWM"); }

}  // namespace metawarp::pipeline
