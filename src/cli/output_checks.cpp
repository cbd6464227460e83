#include "cli/output_checks.hpp"

#include "output/output_path.hpp"

namespace metawarp::cli {

void check_outputs(const std::vector<output::NamedPath>& outputs,
                   const std::vector<output::NamedPath>& inputs, std::string_view noun) {
  for (const output::NamedPath& out : outputs)
    if (!out.path.empty() && out.path != "-") output::check_output_path(out.path, noun);
  output::check_distinct(outputs, inputs);
}

}  // namespace metawarp::cli
