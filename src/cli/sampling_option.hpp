#pragma once
// `build --sampling window|scaled:C|minimizer:W`: which k-mers of a window
// are its features (include/metawarp/sketch/sampling.hpp).
#include <CLI/CLI.hpp>

#include <string>

#include "metawarp/sketch/types.hpp"

namespace metawarp::cli {

// `text` as a sampling and its parameter, stored in `params`. Throws
// CLI::ValidationError "OPTION TEXT: must be ..." naming the forms and ranges.
void parse_sampling(const std::string& option, const std::string& text,
                    sketch::SketchParams& params);

// The option, stored in `params` (whose sampling is the default --help shows).
CLI::Option* add_sampling(CLI::App& app, sketch::SketchParams& params);

}  // namespace metawarp::cli
