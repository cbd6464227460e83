#pragma once
// The warnings at the end of `metawarp build`: what the build found wrong by
// name (pipeline::BuildSummary), a line per kind, each naming at most
// listed_names of them.
#include <string>

#include "pipeline/build/build.hpp"

namespace metawarp::cli {

// "build: warning: ..." lines, each ending in '\n'; empty when all is well.
// `database` is the path given, for the pointer to `metawarp info --unranked`.
std::string build_warnings(const pipeline::BuildSummary& summary, const std::string& database);

}  // namespace metawarp::cli
