#include "cli/sampling_option.hpp"

#include <cstdint>

#include "cli/number_options.hpp"
#include "metawarp/sketch/host.hpp"
#include "metawarp/sketch/sampling.hpp"

namespace metawarp::cli {

void parse_sampling(const std::string& option, const std::string& text,
                    sketch::SketchParams& params) {
  const std::string forms = "window, scaled:C (C 2.." +
                            std::to_string(sketch::max_scale) + ") or minimizer:W (W 2.." +
                            std::to_string(sketch::max_minimizer_window) + ")";
  const std::size_t colon = text.find(':');
  const std::string name = text.substr(0, colon);
  if (name == sketch::sampling_names[std::uint32_t(sketch::Sampling::window)] &&
      colon == std::string::npos) {
    params.sampling = sketch::Sampling::window;
    params.sampling_parameter = 0;
    return;
  }
  for (const sketch::Sampling s : {sketch::Sampling::scaled, sketch::Sampling::minimizer}) {
    if (name != sketch::sampling_names[std::uint32_t(s)] || colon == std::string::npos) continue;
    const std::uint64_t max = s == sketch::Sampling::scaled ? sketch::max_scale
                                                            : sketch::max_minimizer_window;
    const char* letter = s == sketch::Sampling::scaled ? "C" : "W";
    try {
      params.sampling_parameter =
          std::uint32_t(parse_whole_number(option, text.substr(colon + 1), 2, max));
    } catch (const CLI::ValidationError&) {
      throw CLI::ValidationError(option + " " + text + ": must be " + name + ":" + letter +
                                 " with " + letter + " a whole number between 2 and " +
                                 std::to_string(max));
    }
    params.sampling = s;
    return;
  }
  throw CLI::ValidationError(option + " " + (text.empty() ? "''" : text) + ": must be " + forms);
}

CLI::Option* add_sampling(CLI::App& app, sketch::SketchParams& params) {
  return detail::add_checked_option(
      app, "--sampling",
      "Which k-mers are features: window (the s smallest hashes of each window), scaled:C "
      "(FracMinHash: hashes below 2^32/C) or minimizer:W (the smallest hash of every W "
      "consecutive k-mers); the last two keep a k-mer wherever it occurs, in reads as in "
      "references (-s then caps a window's features, by default at " +
          std::to_string(sketch::max_sketch_size) + "). window is the sketch of databases "
      "before version 3 (with k 16, s 16)",
      "SAMPLING", "", sketch::sampling_name(params),
      [&params](const std::string& option, const std::string& text) {
        parse_sampling(option, text, params);
      });
}

}  // namespace metawarp::cli
