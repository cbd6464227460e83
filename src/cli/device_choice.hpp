#pragma once
// --device auto|cpu|gpu, shared by `build` and `query`.
#include <string>

namespace metawarp::cli {

// True for the GPU. auto takes the GPU when one is usable and otherwise
// says on stderr, in a line of its own (unless quiet), that `command` runs on
// the CPU, and why only when verbose; an explicit gpu is taken as asked and
// fails later, saying why, when none is usable. Called before any progress
// line starts, so that the notice never lands inside one.
bool use_gpu(const std::string& device, const char* command, bool quiet, bool verbose);

}  // namespace metawarp::cli
