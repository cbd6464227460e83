#include "cli/build_warnings.hpp"

#include <algorithm>

#include "cli/name_list.hpp"

namespace metawarp::cli {
namespace {

std::string count_of(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// One warning line: "<count> <what>: <names>".
std::string warning(const std::string& what, const std::vector<std::string>& names,
                    std::size_t total) {
  std::string line = "build: warning: " + what;
  if (!names.empty()) line += ": " + name_list(names, total);
  return line;
}

}  // namespace

std::string build_warnings(const pipeline::BuildSummary& summary, const std::string& database) {
  std::string text;
  const std::size_t unmapped =
      std::max<std::size_t>(summary.unmapped_targets, summary.unmapped_target_names.size());
  if (unmapped > 0)
    text += warning(count_of(unmapped, "target has", "targets have") +
                        " no taxon (no taxid, or one the taxonomy lacks)",
                    summary.unmapped_target_names, unmapped) +
            "; `metawarp info " + database + " --unranked` lists them all\n";
  const auto& duplicates = summary.duplicate_target_names;
  if (!duplicates.empty())
    text += warning(count_of(duplicates.size(), "name is", "names are") +
                        " given to more than one target",
                    duplicates, duplicates.size()) +
            "\n";
  const auto& repeated = summary.repeated_files;
  if (!repeated.empty())
    text += warning(count_of(repeated.size(), "file was", "files were") +
                        " named more than once and read once",
                    repeated, repeated.size()) +
            "\n";
  const auto& ranks = summary.unknown_ranks;
  if (!ranks.empty())
    text += warning(count_of(ranks.size(), "unknown rank name", "unknown rank names") +
                        " in the taxonomy",
                    ranks, ranks.size()) +
            "\n";
  return text;
}

}  // namespace metawarp::cli
