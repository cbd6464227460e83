#pragma once
// What report readers (KrakenTools' kreport2mpa and combine_kreports, Bracken,
// Pavian, MultiQC) expect of a Kraken2 report, and of an mpa report, checked
// line by line. Returns "" when the text has the shape, else what is wrong.
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace report_shape {

inline std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, sep)) parts.push_back(part);
  if (!text.empty() && text.back() == sep) parts.push_back("");
  return parts;
}

inline std::string check_kraken_report(const std::string& report) {
  static const std::regex percent(R"( *[0-9]+\.[0-9]{2})");
  static const std::regex count("[0-9]+");
  static const std::regex code("[URDKPCOFGS][0-9]*");
  if (report.empty() || report.back() != '\n') return "empty or no final line end";
  std::vector<std::string> lines = split(report, '\n');
  lines.pop_back();
  std::size_t previous_indent = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string at = "line " + std::to_string(i + 1) + ": ";
    const std::vector<std::string> f = split(lines[i], '\t');
    if (f.size() != 6) return at + std::to_string(f.size()) + " columns, not 6";
    if (f[0].size() < 6 || !std::regex_match(f[0], percent)) return at + "percent '" + f[0] + "'";
    if (!std::regex_match(f[1], count) || !std::regex_match(f[2], count) ||
        !std::regex_match(f[4], count))
      return at + "a count or taxid is not a number";
    if (std::stoull(f[2]) > std::stoull(f[1])) return at + "more direct reads than clade reads";
    if (!std::regex_match(f[3], code)) return at + "rank code '" + f[3] + "'";
    const std::size_t indent = f[5].find_first_not_of(' ');
    if (indent == std::string::npos || indent % 2 != 0) return at + "indentation of the name";
    const bool unclassified = f[3] == "U";
    if (unclassified != (f[4] == "0") || (unclassified && (i != 0 || f[5] != "unclassified")))
      return at + "the unclassified line must be the first, taxid 0";
    const bool first_of_tree = i == 0 || (i == 1 && lines[0].find("\tU\t") != std::string::npos);
    if (first_of_tree && !unclassified && (f[3] != "R" || f[5] != "root" || indent != 0))
      return at + "the tree must start with root (code R, not indented)";
    if (!first_of_tree && !unclassified && (indent == 0 || indent > previous_indent + 2))
      return at + "a name indented deeper than one level below the line before";
    if (!unclassified) previous_indent = indent;
  }
  return "";
}

inline std::string check_mpa_report(const std::string& report) {
  static const std::regex element("[dkpcofgs]__[^\t|]+");
  static const std::regex count("[0-9]+");
  std::vector<std::string> lines = split(report, '\n');
  if (!lines.empty()) lines.pop_back();
  std::vector<std::string> paths;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string at = "line " + std::to_string(i + 1) + ": ";
    const std::vector<std::string> f = split(lines[i], '\t');
    if (f.size() != 2 || !std::regex_match(f[1], count)) return at + "not 'path<TAB>reads'";
    const std::vector<std::string> elements = split(f[0], '|');
    for (const std::string& e : elements)
      if (!std::regex_match(e, element)) return at + "path element '" + e + "'";
    if (elements.size() > 1) {
      const std::string parent = f[0].substr(0, f[0].rfind('|'));
      bool seen = false;
      for (const std::string& p : paths) seen = seen || p == parent;
      if (!seen) return at + "its parent path is not listed before it";
    }
    paths.push_back(f[0]);
  }
  return "";
}

}  // namespace report_shape
