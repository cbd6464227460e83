#include "cli/build_warnings.hpp"

#include <algorithm>

#include "cli/name_list.hpp"

namespace metawarp::cli {
namespace {

// One kind of problem: its names, and how to say how many there are
// ("1 name is" / "3 names are") and what is wrong with them.
struct Problem {
  const std::vector<std::string>& names;
  std::size_t count;  // may exceed names.size() when only some names were kept
  const char* one;
  const char* many;
  const char* what;
};

// "build: warning: <count> <what>: <names>" (no names: no colon).
std::string warning(const Problem& p) {
  std::string line = "build: warning: " + std::to_string(p.count) + " " +
                     (p.count == 1 ? p.one : p.many) + " " + p.what;
  if (!p.names.empty()) line += ": " + name_list(p.names, p.count);
  return line;
}

}  // namespace

std::string build_warnings(const pipeline::BuildSummary& summary, const std::string& database) {
  std::string text;
  const Problem unmapped{
      summary.unmapped_target_names,
      std::max<std::size_t>(summary.unmapped_targets, summary.unmapped_target_names.size()),
      "target has", "targets have", "no taxon (no taxid, or one the taxonomy lacks)"};
  if (unmapped.count > 0)
    text += warning(unmapped) + "; `metawarp info " + database + " --unranked` lists them all\n";
  const Problem named[] = {
      {summary.duplicate_target_names, summary.duplicate_target_names.size(), "name is",
       "names are", "given to more than one target"},
      {summary.repeated_files, summary.repeated_files.size(), "file was", "files were",
       "named more than once and read once"},
      {summary.unknown_ranks, summary.unknown_ranks.size(), "unknown rank name",
       "unknown rank names", "in the taxonomy"},
  };
  for (const Problem& p : named)
    if (p.count > 0) text += warning(p) + "\n";
  return text;
}

}  // namespace metawarp::cli
