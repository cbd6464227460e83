// Taxonomy::load_ncbi: nodes.dmp, names.dmp and merged.dmp (each plain or
// gzip), parsed by hand because a full taxdump has millions of lines.
#include <algorithm>
#include <array>
#include <stdexcept>

#include "taxonomy/taxonomy.hpp"
#include "taxonomy/taxonomy_origin.hpp"
#include "taxonomy/text_lines.hpp"

namespace metawarp::taxonomy {
namespace {

namespace fs = std::filesystem;
using detail::TextLines;

constexpr std::size_t max_listed_unknown_ranks = 32;

fs::path require_dump(const fs::path& dir, std::string_view name) {
  if (auto p = detail::find_dump(dir, name)) return *p;
  throw std::runtime_error(dir.string() + ": neither " + std::string(name) + " nor " +
                           std::string(name) + ".gz found");
}

// merged.dmp[.gz], or else the one merged*.dmp[.gz] in `dir` (dated copies
// such as merged-2013.dmp.gz); none is fine, several are ambiguous.
std::optional<fs::path> find_merged_dump(const fs::path& dir) {
  if (auto p = detail::find_dump(dir, "merged.dmp")) return p;
  std::vector<fs::path> candidates;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    const bool dump = name.ends_with(".dmp") || name.ends_with(".dmp.gz");
    if (name.starts_with("merged") && dump && entry.is_regular_file(ec))
      candidates.push_back(entry.path());
  }
  if (candidates.empty()) return std::nullopt;
  if (candidates.size() > 1) {
    std::sort(candidates.begin(), candidates.end());
    throw std::runtime_error(dir.string() + ": several merged dumps (" +
                             candidates[0].filename().string() + ", " +
                             candidates[1].filename().string() +
                             ", ...): keep one or name it merged.dmp");
  }
  return candidates.front();
}

template <std::size_t N>
std::size_t require_fields(TextLines& in, std::string_view line,
                           std::array<std::string_view, N>& fields, std::size_t needed) {
  const std::size_t found = detail::split_dmp_fields(line, fields);
  if (found < needed)
    in.fail("expected at least " + std::to_string(needed) +
            " fields separated by '\\t|\\t', found " + std::to_string(found));
  return found;
}

taxid_t require_taxid(TextLines& in, std::string_view field, std::string_view what) {
  if (auto id = detail::parse_taxid(field)) return *id;
  in.fail("bad " + std::string(what) + " '" + std::string(field.substr(0, 40)) +
          "' (expected a positive decimal taxid)");
}

}  // namespace

std::vector<fs::path> Taxonomy::ncbi_files(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const char* name : {"nodes.dmp", "names.dmp"})
    if (auto p = detail::find_dump(dir, name)) files.push_back(*p);
  if (auto p = find_merged_dump(dir)) files.push_back(*p);
  return files;
}

Taxonomy Taxonomy::load_ncbi(const fs::path& dir) {
  const fs::path nodes_path = require_dump(dir, "nodes.dmp");
  const fs::path names_path = require_dump(dir, "names.dmp");
  const std::optional<fs::path> merged_path = find_merged_dump(dir);

  std::vector<Node> nodes;
  Origin origin;
  std::size_t unknown_ranks = 0;
  std::vector<std::string> unknown_rank_names;
  {
    TextLines in(nodes_path);
    origin.file = in.file_name();
    std::array<std::string_view, 3> f;
    std::string_view line;
    while (in.next(line)) {
      if (line.empty()) continue;
      require_fields(in, line, f, 3);
      Node node;
      node.id = require_taxid(in, f[0], "taxid");
      node.parent = require_taxid(in, f[1], "parent taxid");
      if (const auto rank = rank_from_name(f[2])) {
        node.rank = *rank;
      } else {
        // New NCBI ranks appear now and then; they must not stop a build.
        ++unknown_ranks;
        if (unknown_rank_names.size() < max_listed_unknown_ranks &&
            std::find(unknown_rank_names.begin(), unknown_rank_names.end(), f[2]) ==
                unknown_rank_names.end())
          unknown_rank_names.emplace_back(f[2]);
      }
      nodes.push_back(std::move(node));
      origin.lines.push_back(std::uint32_t(in.line_number()));
    }
  }

  std::vector<std::pair<taxid_t, taxid_t>> merged;
  if (merged_path) {
    TextLines in(*merged_path);
    std::array<std::string_view, 2> f;
    std::string_view line;
    while (in.next(line)) {
      if (line.empty()) continue;
      require_fields(in, line, f, 2);
      const taxid_t old_id = require_taxid(in, f[0], "old taxid");
      const taxid_t new_id = require_taxid(in, f[1], "new taxid");
      merged.emplace_back(old_id, new_id);
    }
  }

  Taxonomy t = build(std::move(nodes), std::move(merged), origin);
  t.unknown_rank_count_ = unknown_ranks;
  t.unknown_rank_names_ = std::move(unknown_rank_names);

  {
    TextLines in(names_path);
    std::array<std::string_view, 4> f;
    std::string_view line;
    while (in.next(line)) {
      if (line.empty()) continue;
      require_fields(in, line, f, 4);
      if (f[3] != "scientific name") continue;
      const taxid_t id = require_taxid(in, f[0], "taxid");
      // Names of taxa absent from nodes.dmp (cut-down dumps) are ignored.
      const std::uint32_t pos = t.position_of(id);
      if (pos != npos && t.nodes_[pos].name.empty()) t.nodes_[pos].name = f[1];
    }
  }
  return t;
}

}  // namespace metawarp::taxonomy
