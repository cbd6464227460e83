#include "taxonomy/id_mapping.hpp"

#include <array>
#include <stdexcept>

#include "taxonomy/text_lines.hpp"

namespace metawarp::taxonomy {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }

// INSDC/RefSeq accessions: upper-case letters (with '_' as in NC_ or NZ_CP),
// then digits, then an optional ".version" ("NC_000913.3", "U00096", "NZ_CP012345.1").
bool looks_like_accession(std::string_view t) {
  if (const auto dot = t.rfind('.'); dot != std::string_view::npos) {
    const auto version = t.substr(dot + 1);
    if (version.empty()) return false;
    for (const char c : version)
      if (!is_digit(c)) return false;
    t = t.substr(0, dot);
  }
  if (t.size() < 2 || !is_upper(t.front()) || !is_digit(t.back())) return false;
  for (const char c : t)
    if (!is_upper(c) && !is_digit(c) && c != '_') return false;
  return true;
}

}  // namespace

std::optional<taxid_t> taxid_from_header(std::string_view header) {
  constexpr std::string_view key = "taxid|";
  for (std::size_t pos = header.find(key); pos != std::string_view::npos;
       pos = header.find(key, pos + 1)) {
    // A word of its own ("taxid|", ">taxid|", "|taxid|", "kraken:taxid|"),
    // not the tail of some other word.
    if (pos > 0) {
      const char before = header[pos - 1];
      if (before != '|' && before != ':' && before != '>' && !is_space(before)) continue;
    }
    const std::size_t begin = pos + key.size();
    std::size_t end = begin;
    while (end < header.size() && is_digit(header[end])) ++end;
    if (end < header.size() && header[end] != '|' && !is_space(header[end])) continue;
    if (const auto id = detail::parse_taxid(header.substr(begin, end - begin))) return id;
  }
  return std::nullopt;
}

std::string_view sequence_id_of(std::string_view header) {
  std::size_t begin = 0;
  if (begin < header.size() && header[begin] == '>') ++begin;
  while (begin < header.size() && is_space(header[begin])) ++begin;
  std::size_t end = begin;
  while (end < header.size() && !is_space(header[end])) ++end;
  return header.substr(begin, end - begin);
}

std::string accession_of(std::string_view seqid) {
  // Ids with database tags ("gi|123|ref|NC_000913.3|", "kraken:taxid|562|X")
  // hold the accession as one of their '|'-separated tokens.
  for (std::size_t begin = 0; begin <= seqid.size();) {
    std::size_t end = seqid.find('|', begin);
    if (end == std::string_view::npos) end = seqid.size();
    const auto token = seqid.substr(begin, end - begin);
    if (looks_like_accession(token)) return std::string(token);
    begin = end + 1;
  }
  return std::string(seqid);
}

std::string_view accession_without_version(std::string_view accession) {
  const auto dot = accession.rfind('.');
  if (dot == std::string_view::npos || dot + 1 == accession.size()) return accession;
  for (std::size_t i = dot + 1; i < accession.size(); ++i)
    if (!is_digit(accession[i])) return accession;
  return accession.substr(0, dot);
}

// ---- SeqIdMap ---------------------------------------------------------------

SeqIdMap SeqIdMap::load_seqid2taxid(const std::filesystem::path& path) {
  SeqIdMap result;
  detail::TextLines in(path);
  std::string_view line;
  while (in.next(line)) {
    // Split on runs of tabs/spaces; exactly two columns.
    std::array<std::string_view, 3> columns;
    std::size_t count = 0;
    for (std::size_t i = 0; i < line.size() && count < columns.size();) {
      while (i < line.size() && is_space(line[i])) ++i;
      if (i == line.size()) break;
      std::size_t j = i;
      while (j < line.size() && !is_space(line[j])) ++j;
      columns[count++] = line.substr(i, j - i);
      i = j;
    }
    if (count == 0) continue;  // blank line
    // Kraken2's prelim_map.txt: "TAXID seqid taxid", or "ACCNUM seqid
    // accession", which accession2taxid maps (TaxidResolver's next source).
    if (count == 3 && columns[0] == "ACCNUM") continue;
    const bool prelim = count == 3 && columns[0] == "TAXID";
    if (count != 2 && !prelim)
      in.fail("expected 2 columns (seqid, taxid) or a Kraken2 prelim_map line (TAXID or "
              "ACCNUM, seqid, value), found " +
              std::string(count > 2 ? "more" : "1"));
    const std::string_view seqid = columns[prelim ? 1 : 0], value = columns[prelim ? 2 : 1];
    const auto taxid = detail::parse_taxid(value);
    if (!taxid)
      in.fail("bad taxid '" + std::string(value.substr(0, 40)) + "' for seqid '" +
              std::string(seqid) + "'");
    const auto [it, inserted] = result.map_.emplace(std::string(seqid), *taxid);
    if (!inserted && it->second != *taxid)
      in.fail("seqid '" + it->first + "' maps to taxid " + std::to_string(*taxid) +
              " here but to " + std::to_string(it->second) + " on an earlier line");
  }
  return result;
}

bool maps_by_accession(const std::filesystem::path& path) {
  detail::TextLines in(path);
  std::string_view line;
  while (in.next(line))
    if (line.substr(0, 7) == "ACCNUM\t") return true;
  return false;
}

std::optional<taxid_t> SeqIdMap::find(std::string_view seqid) const {
  const auto it = map_.find(std::string(seqid));
  if (it == map_.end()) return std::nullopt;
  return it->second;
}

// ---- AccessionMap -----------------------------------------------------------

void AccessionMap::add(std::string_view accession_version, taxid_t taxid) {
  by_version_.emplace(std::string(accession_version), taxid);
  by_accession_.emplace(std::string(accession_without_version(accession_version)), taxid);
}

AccessionMap AccessionMap::load_accession2taxid(const std::vector<std::filesystem::path>& files,
                                                const std::unordered_set<std::string>& wanted) {
  // Compare by accession without version, so that a wanted "NC_000913.3"
  // also keeps a row for "NC_000913" (or another version) and vice versa;
  // find() then prefers the exact version.
  std::unordered_set<std::string_view> wanted_accessions;
  wanted_accessions.reserve(wanted.size());
  for (const auto& w : wanted) wanted_accessions.insert(accession_without_version(w));

  AccessionMap result;
  for (const auto& file : files) {
    detail::TextLines in(file);
    std::string_view line;
    while (in.next(line)) {
      if (line.empty()) continue;
      if (in.line_number() == 1 && line.starts_with("accession\t")) continue;  // header
      std::array<std::string_view, 3> columns;
      std::size_t count = 0;
      for (std::size_t i = 0; count < columns.size();) {
        const std::size_t tab = line.find('\t', i);
        columns[count++] = line.substr(i, tab == std::string_view::npos ? line.npos : tab - i);
        if (tab == std::string_view::npos) break;
        i = tab + 1;
      }
      if (count < 3 || columns[0].empty())
        in.fail("expected tab-separated accession, accession.version, taxid");
      const auto accession = columns[0];
      const auto version = columns[1].empty() ? columns[0] : columns[1];
      if (!wanted_accessions.contains(accession) &&
          !wanted_accessions.contains(accession_without_version(version)))
        continue;
      const auto taxid = detail::parse_taxid(columns[2]);
      if (!taxid)
        in.fail("bad taxid '" + std::string(columns[2].substr(0, 40)) + "' for accession '" +
                std::string(version) + "'");
      result.by_version_.emplace(std::string(version), *taxid);
      result.by_accession_.emplace(std::string(accession), *taxid);
    }
  }
  return result;
}

std::optional<taxid_t> AccessionMap::find(std::string_view accession_or_version) const {
  if (const auto it = by_version_.find(std::string(accession_or_version)); it != by_version_.end())
    return it->second;
  const auto it = by_accession_.find(std::string(accession_without_version(accession_or_version)));
  if (it == by_accession_.end()) return std::nullopt;
  return it->second;
}

// ---- TaxidResolver ----------------------------------------------------------

std::optional<taxid_t> TaxidResolver::accept(std::optional<taxid_t> candidate) const {
  if (!candidate || !taxonomy_) return candidate;
  const taxid_t resolved = taxonomy_->resolve(*candidate);
  if (resolved == no_taxon) return std::nullopt;
  return resolved;
}

std::optional<taxid_t> TaxidResolver::resolve(std::string_view header,
                                              std::string_view file) const {
  if (const auto t = accept(taxid_from_header(header))) return t;
  const std::string_view seqid = sequence_id_of(header);
  const std::string accession = accession_of(seqid);
  for (const auto& map : seqid_maps_) {
    if (const auto t = accept(map.find(seqid))) return t;
    if (accession != seqid)
      if (const auto t = accept(map.find(accession))) return t;
  }
  for (const auto& map : accession_maps_)
    if (const auto t = accept(map.find(accession))) return t;
  if (genomes_ && !file.empty())
    if (const auto genome = assembly_accession_of_file(file))
      if (const auto t = accept(genomes_->find(*genome))) return t;
  return std::nullopt;
}

}  // namespace metawarp::taxonomy
