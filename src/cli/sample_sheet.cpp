#include "cli/sample_sheet.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace metawarp::cli {

namespace {

std::vector<std::string> split_tabs(std::string_view line) {
  std::vector<std::string> fields;
  for (;;) {
    const std::size_t tab = line.find('\t');
    fields.emplace_back(line.substr(0, tab));
    if (tab == std::string_view::npos) return fields;
    line.remove_prefix(tab + 1);
  }
}

bool blank(std::string_view text) {
  return text.find_first_not_of(" \t") == std::string_view::npos;
}

bool comment(std::string_view line) {
  const std::size_t first = line.find_first_not_of(" \t");
  return first != std::string_view::npos && line[first] == '#';
}

bool exists(const std::string& path) {
  std::error_code error;
  return path == "-" || std::filesystem::exists(path, error);
}

// A sample from its columns; `where` starts every message ("s.tsv line 4").
pipeline::Sample make_sample(std::vector<std::string> columns, const std::string& where,
                             const std::filesystem::path& folder) {
  // An empty R2 column (a sheet exported with single-end samples among
  // paired ones) is no R2.
  while (columns.size() > 2 && columns.back().empty()) columns.pop_back();
  const std::string& name = columns.front();
  if (columns.size() == 1) {
    const bool spaces = name.find(' ') != std::string::npos;
    throw std::invalid_argument(where + ": no reads file column (name, R1, optional R2" +
                                (spaces ? ", separated by tabs, not spaces)" : ")"));
  }
  if (columns.size() > 3)
    throw std::invalid_argument(where + ": " + std::to_string(columns.size()) +
                                " columns; a sample has a name, R1 and an optional R2");
  if (const std::string problem = pipeline::sample_name_problem(name); !problem.empty())
    throw std::invalid_argument(where + ": sample name '" + name +
                                "' is not a safe file name: " + problem);
  pipeline::Sample sample;
  sample.name = name;
  sample.origin = where;
  for (std::size_t i = 1; i < columns.size(); ++i) {
    const std::string column = i == 1 ? "R1" : "R2";
    if (columns[i].empty())
      throw std::invalid_argument(where + ": the " + column + " column is empty");
    std::string path = columns[i];
    if (path != "-" && std::filesystem::path(path).is_relative() && !folder.empty())
      path = (folder / path).string();
    if (!exists(path))
      throw std::invalid_argument(where + ": " + column + " file '" + path +
                                  "' does not exist");
    sample.reads.push_back(std::move(path));
  }
  return sample;
}

}  // namespace

std::vector<pipeline::Sample> parse_sample_sheet(std::string_view text,
                                                 const std::filesystem::path& sheet) {
  std::vector<pipeline::Sample> samples;
  const std::filesystem::path folder = sheet.parent_path();
  std::size_t number = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (blank(line) || comment(line)) continue;
    samples.push_back(make_sample(split_tabs(line),
                                  "sample sheet '" + sheet.string() + "' line " +
                                      std::to_string(number),
                                  folder));
  }
  if (samples.empty())
    throw std::invalid_argument("sample sheet '" + sheet.string() + "' names no sample");
  return samples;
}

std::vector<pipeline::Sample> read_sample_sheet(const std::filesystem::path& sheet) {
  std::ifstream in(sheet, std::ios::binary);
  std::ostringstream text;
  if (in) text << in.rdbuf();
  if (!in || in.bad())
    throw std::runtime_error("sample sheet '" + sheet.string() +
                             "' cannot be read: " + std::strerror(errno));
  return parse_sample_sheet(text.str(), sheet);
}

pipeline::Sample sample_from_option(const std::vector<std::string>& values) {
  if (values.empty()) throw std::invalid_argument("--sample needs NAME R1 [R2]");
  return make_sample(values, "--sample " + values.front(), {});
}

}  // namespace metawarp::cli
