#include "report/mpa_report.hpp"

#include <optional>
#include <string_view>

namespace metawarp::report {
namespace {

// The level prefix of a main-rank code (its letter in lower case), or
// nullopt for every other code.
std::optional<char> mpa_level(const std::string& code) {
  if (code.size() != 1 || std::string_view("DKPCOFGS").find(code[0]) == std::string_view::npos)
    return std::nullopt;
  return char(code[0] - 'A' + 'a');
}

}  // namespace

std::string mpa_report(const std::vector<ReportLine>& lines) {
  std::string out;
  // path[d]: the element of the ancestor at depth d ("" when it is not of a
  // main rank, so it is left out of the path).
  std::vector<std::string> path;
  for (const ReportLine& line : lines) {
    if (line.code == "U") continue;
    path.resize(line.depth);
    const std::optional<char> level = mpa_level(line.code);
    std::string element;
    if (level) {
      element = std::string(1, *level) + "__" + line.name;
      for (const std::string& ancestor : path)
        if (!ancestor.empty()) out += ancestor + '|';
      out += element;
      out += '\t';
      out += std::to_string(line.clade);
      out += '\n';
    }
    path.push_back(std::move(element));
  }
  return out;
}

}  // namespace metawarp::report
