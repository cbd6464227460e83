#include "cli/kraken2_database.hpp"

#include <cstdlib>
#include <stdexcept>
#include <system_error>

#include "cli/number_options.hpp"

namespace metawarp::cli {
namespace fs = std::filesystem;

namespace {

// The folders of a ':'-separated search path; an empty entry is the working
// folder, as Kraken2 reads "::", a leading or a trailing ':'.
std::vector<fs::path> search_folders(const std::string& path) {
  std::vector<fs::path> folders;
  std::size_t from = 0;
  while (true) {
    const std::size_t colon = path.find(':', from);
    const std::string entry = path.substr(from, colon - from);
    folders.emplace_back(entry.empty() ? "." : entry);
    if (colon == std::string::npos) return folders;
    from = colon + 1;
  }
}

}  // namespace

fs::path find_kraken2_database(std::string name) {
  if (name.empty()) {
    const char* preset = std::getenv("KRAKEN2_DEFAULT_DB");
    if (!preset || !*preset)
      throw std::invalid_argument(
          "give the database: --db DIR (a folder holding " + std::string(kraken2_database_file) +
          ", as `metawarp kraken2-build --build --db DIR` writes it) or --db FILE.mwdb, or set "
          "KRAKEN2_DEFAULT_DB");
    name = preset;
  }
  std::error_code error;
  fs::path found = name;
  if (name.find('/') == std::string::npos) {
    const char* path = std::getenv("KRAKEN2_DB_PATH");
    found.clear();
    for (const fs::path& folder : search_folders(path ? path : "")) {
      if (fs::exists(folder / name, error)) {
        found = folder / name;
        break;
      }
    }
    if (found.empty())
      throw std::invalid_argument(
          "--db " + name + ": not found in the folders of KRAKEN2_DB_PATH (" +
          (path ? "'" + std::string(path) + "'" : "unset: the working folder") + ")");
  }
  if (fs::is_directory(found, error)) {
    const fs::path file = found / kraken2_database_file;
    if (fs::exists(file, error)) return file;
    const std::string build = "build it with `metawarp kraken2-build --build --db " +
                              found.string() + "` (from its library/ and taxonomy/ folders)";
    if (fs::exists(found / "hash.k2d", error))
      throw std::invalid_argument("--db " + found.string() +
                                  ": a Kraken 2 database (hash.k2d), which metawarp cannot read, "
                                  "and no " + kraken2_database_file + ": " + build);
    throw std::invalid_argument("--db " + found.string() + ": no " + kraken2_database_file +
                                " in this folder: " + build + ", or give --db a .mwdb file");
  }
  if (!fs::exists(found, error))
    throw std::invalid_argument("--db " + found.string() + ": no such folder or file");
  return found;
}

unsigned threads_from_environment(const char* variable, unsigned fallback, unsigned max) {
  const char* text = std::getenv(variable);
  if (!text || !*text) return fallback;
  return unsigned(parse_whole_number(variable, text, 1, max));
}

}  // namespace metawarp::cli
