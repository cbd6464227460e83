// Command-line inputs to a sorted list of sequence files.
#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <system_error>

#include "io/parse/sequence_reader.hpp"

namespace metawarp::io {
namespace {

namespace fs = std::filesystem;

std::string lower_case(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

bool ends_with(const std::string& text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Only used for files found inside directories; files named on the command
// line are taken whatever their name.
bool has_sequence_extension(const fs::path& file) {
  static constexpr std::array<std::string_view, 7> extensions = {
      ".fa", ".fna", ".fasta", ".ffn", ".frn", ".fq", ".fastq"};
  std::string name = lower_case(file.filename().string());
  if (ends_with(name, ".gz")) name.resize(name.size() - 3);
  return std::any_of(extensions.begin(), extensions.end(),
                     [&](std::string_view extension) { return ends_with(name, extension); });
}

std::vector<std::string> sequence_files_below(const std::string& directory) {
  std::vector<std::string> found;
  std::error_code error;
  fs::recursive_directory_iterator it(directory, error), end;
  for (; !error && it != end; it.increment(error)) {
    std::error_code type_error;
    if (it->is_regular_file(type_error) && has_sequence_extension(it->path())) {
      found.push_back(it->path().string());
    }
  }
  if (error) throw InputError(directory, 0, "cannot list directory: " + error.message());
  if (found.empty()) {
    throw InputError(directory, 0,
                     "directory holds no sequence files (.fa .fna .fasta .ffn .frn .fq .fastq, "
                     "optionally .gz)");
  }
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace

std::vector<std::string> expand_inputs(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    if (path == "-") {
      files.push_back(path);
      continue;
    }
    std::error_code error;
    const fs::file_status status = fs::status(path, error);
    if (!fs::exists(status)) throw InputError(path, 0, "no such file or directory");
    if (fs::is_directory(status)) {
      const std::vector<std::string> found = sequence_files_below(path);
      files.insert(files.end(), found.begin(), found.end());
    } else {
      files.push_back(path);
    }
  }
  return files;
}

}  // namespace metawarp::io
