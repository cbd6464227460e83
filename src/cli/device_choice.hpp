#pragma once
// --device auto|cpu|gpu, shared by `build` and `query`.
#include <string>

namespace metawarp::cli {

// True for the GPU. auto takes the GPU when one is usable and otherwise
// notes on stderr (unless quiet) why `command` runs on the CPU; an explicit
// gpu is taken as asked and fails later, saying why, when none is usable.
bool use_gpu(const std::string& device, const char* command, bool quiet);

}  // namespace metawarp::cli
