#include "report/read_profile.hpp"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "db/checksum.hpp"
#include "db/metadata.hpp"

namespace metawarp::report {

namespace {

// The first line: the magic and the format version (2: the reads' error rate).
constexpr const char* magic = "#metawarp read-placement profile ";
constexpr unsigned format_version = 3;
constexpr const char* file_marker = ".profile-L";

std::string hex(std::uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "%016" PRIx64, value);
  return text;
}

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
  throw std::runtime_error("profile '" + path + "': " + problem);
}

}  // namespace

DatabaseIdentity database_identity(const std::filesystem::path& database) {
  return database_identity(db::load_metadata(database, 1));
}

DatabaseIdentity database_identity(const db::DatabaseMetadata& meta) {
  return {meta.version,           meta.file_size,           meta.features.checksum,
          meta.offsets.checksum, meta.locations.checksum, meta.db.targets.size()};
}

std::filesystem::path profile_path(const std::filesystem::path& database,
                                   const ProfileReads& reads) {
  return database.string() + file_marker + std::to_string(reads.read_length) +
         (reads.paired ? "-paired" : "");
}

std::string profile_text(const ReadProfile& p) {
  std::ostringstream out;
  const DatabaseIdentity& d = p.database;
  const ProfileClassifier& c = p.classifier;
  out << magic << format_version << '\n'
      << "database " << d.version << ' ' << d.file_size << ' ' << hex(d.features_checksum) << ' '
      << hex(d.offsets_checksum) << ' ' << hex(d.locations_checksum) << ' ' << d.targets << '\n'
      << "reads " << p.reads.read_length << ' ' << (p.reads.paired ? "paired" : "single") << ' '
      << p.reads.fragment_length << ' ' << p.reads.stride << ' ' << p.reads.error_ppm << '\n'
      << "classifier " << c.max_candidates << ' ' << c.hit_min << ' ' << c.hit_diff << ' '
      << c.lowest << ' ' << c.highest << ' ' << c.insert_size << ' ' << c.confidence_millionths
      << ' ' << c.minimum_hit_groups << ' ' << c.match_min << '\n';
  for (const ProfileSource& s : p.sources) {
    out << "source " << s.taxid << ' ' << s.reads << ' ' << s.assigned.size() << '\n';
    for (const auto& [taxid, reads] : s.assigned) out << taxid << ' ' << reads << '\n';
  }
  std::string text = out.str();
  text += "checksum " + hex(db::checksum64(text.data(), text.size())) + '\n';
  return text;
}

ReadProfile parse_profile(const std::string& text, const std::string& path) {
  if (text.compare(0, std::string(magic).size(), magic) != 0)
    fail(path, "not a metawarp read-placement profile (its first line does not start with '" +
                   std::string(magic) + "')");
  const std::string version = text.substr(std::string(magic).size(),
                                          text.find('\n') - std::string(magic).size());
  if (version != std::to_string(format_version))
    fail(path, "format " + version + ", this metawarp reads format " +
                   std::to_string(format_version) +
                   " (an older metawarp made it); build it again with metawarp profile-db");
  const std::size_t last = text.rfind("checksum ", text.size() < 2 ? 0 : text.size() - 2);
  std::uint64_t recorded = 0;
  if (last == std::string::npos || (last > 0 && text[last - 1] != '\n') ||
      std::sscanf(text.c_str() + last, "checksum %" SCNx64, &recorded) != 1 ||
      text.back() != '\n')
    fail(path, "truncated (no checksum line at its end); build it again with metawarp profile-db");
  if (db::checksum64(text.data(), last) != recorded)
    fail(path, "damaged (its checksum does not match); build it again with metawarp profile-db");

  std::istringstream in(text.substr(0, last));
  std::string line, word, layout;
  std::getline(in, line);
  ReadProfile p;
  DatabaseIdentity& d = p.database;
  ProfileClassifier& c = p.classifier;
  in >> word >> d.version >> d.file_size >> std::hex >> d.features_checksum >>
      d.offsets_checksum >> d.locations_checksum >> std::dec >> d.targets;
  if (!in || word != "database") fail(path, "bad 'database' line");
  in >> word >> p.reads.read_length >> layout >> p.reads.fragment_length >> p.reads.stride >>
      p.reads.error_ppm;
  if (!in || word != "reads" || (layout != "single" && layout != "paired"))
    fail(path, "bad 'reads' line");
  p.reads.paired = layout == "paired";
  in >> word >> c.max_candidates >> c.hit_min >> c.hit_diff >> c.lowest >> c.highest >>
      c.insert_size >> c.confidence_millionths >> c.minimum_hit_groups >> c.match_min;
  if (!in || word != "classifier") fail(path, "bad 'classifier' line");
  while (in >> word) {
    ProfileSource s;
    std::size_t n = 0;
    in >> s.taxid >> s.reads >> n;
    if (!in || word != "source") fail(path, "bad 'source' line");
    s.assigned.resize(n);
    for (auto& [taxid, reads] : s.assigned) in >> taxid >> reads;
    if (!in) fail(path, "bad assignment line of source " + std::to_string(s.taxid));
    p.sources.push_back(std::move(s));
  }
  return p;
}

ReadProfile read_profile_file(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) fail(path.string(), "cannot be read");
  std::ostringstream text;
  text << file.rdbuf();
  if (file.bad()) fail(path.string(), "cannot be read");
  return parse_profile(text.str(), path.string());
}

std::vector<ReadProfile> load_profiles(const std::filesystem::path& database) {
  std::vector<std::filesystem::path> paths;
  const std::filesystem::path folder =
      database.has_parent_path() ? database.parent_path() : std::filesystem::path(".");
  const std::string prefix = database.filename().string() + file_marker;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(folder, error)) {
    const std::string name = entry.path().filename().string();
    // Temporaries of a profile being written (".tmp-<pid>") are not profiles.
    if (name.rfind(prefix, 0) == 0 && name.find(".tmp-") == std::string::npos)
      paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  std::vector<ReadProfile> profiles;
  if (paths.empty()) return profiles;
  const DatabaseIdentity identity = database_identity(database);
  for (const auto& path : paths) {
    ReadProfile profile = read_profile_file(path);
    if (profile.database != identity)
      fail(path.string(),
           "was built for another database than '" + database.string() +
               "' (or an older build of it); build it again: metawarp profile-db " +
               database.string() + " --read-length " + std::to_string(profile.reads.read_length) +
               (profile.reads.paired ? " --paired" : "") + ", or remove it");
    profiles.push_back(std::move(profile));
  }
  return profiles;
}

const ReadProfile* nearest_profile(const std::vector<ReadProfile>& profiles, bool paired,
                                   double mean_read_length) {
  const ReadProfile* best = nullptr;
  for (const ReadProfile& p : profiles) {
    if (p.reads.paired != paired) continue;
    const double distance = std::fabs(double(p.reads.read_length) - mean_read_length);
    if (!best || distance < std::fabs(double(best->reads.read_length) - mean_read_length) ||
        (distance == std::fabs(double(best->reads.read_length) - mean_read_length) &&
         p.reads.read_length < best->reads.read_length))
      best = &p;
  }
  return best;
}

}  // namespace metawarp::report
