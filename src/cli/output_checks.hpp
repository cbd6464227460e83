#pragma once
// What a command checks about its outputs before it starts any work, so that
// a bad output path costs no build or query time and removes nothing.
#include <string_view>
#include <vector>

#include "output/output_check.hpp"

namespace metawarp::cli {

// The output path rule (output/output_path.hpp) for every output written to a
// file (not "-", not ""), then output::check_distinct. `noun` names the
// outputs in messages ("database"; empty for query outputs).
void check_outputs(const std::vector<output::NamedPath>& outputs,
                   const std::vector<output::NamedPath>& inputs, std::string_view noun = {});

}  // namespace metawarp::cli
