#include "taxonomy/gtdb.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <unordered_set>
#include <stdexcept>
#include <vector>

#include "taxonomy/text_lines.hpp"

namespace metawarp::taxonomy {
namespace {

struct Level {
  char letter;
  Rank rank;
};
// GTDB's levels, top down: a lineage names them in this order.
constexpr std::array<Level, 7> levels{{{'d', Rank::domain},
                                       {'p', Rank::phylum},
                                       {'c', Rank::class_},
                                       {'o', Rank::order},
                                       {'f', Rank::family},
                                       {'g', Rank::genus},
                                       {'s', Rank::species}}};

std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ull;
  }
  return hash;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// What the file says of one lineage prefix.
struct Taxon {
  std::string parent;  // the parent's prefix; "" for a domain
  Rank rank = Rank::none;
  std::string name;
};

// "GB_GCA_000005845.2" -> "GCA_000005845.2"
std::string_view without_source(std::string_view accession) {
  if (accession.size() > 3 && (accession.substr(0, 3) == "RS_" || accession.substr(0, 3) == "GB_"))
    accession.remove_prefix(3);
  return accession;
}

}  // namespace

GtdbTaxonomy GtdbTaxonomy::load(const std::vector<std::filesystem::path>& files) {
  std::map<std::string, Taxon> taxa;                  // by lineage prefix, sorted
  std::unordered_map<std::string, std::string> lineage_of;  // accession -> species prefix
  for (const auto& file : files) {
    detail::TextLines in(file);
    std::string_view line;
    while (in.next(line)) {
      if (trim(line).empty()) continue;
      const std::size_t tab = line.find('\t');
      if (tab == std::string_view::npos)
        in.fail("expected 'accession<TAB>d__...;p__...;s__...' (no tab)");
      const std::string accession(without_source(trim(line.substr(0, tab))));
      if (accession.empty()) in.fail("empty accession");
      std::string_view rest = trim(line.substr(tab + 1));
      std::string prefix;
      std::size_t next_level = 0;
      while (!rest.empty()) {
        const std::size_t semicolon = rest.find(';');
        const std::string_view part = trim(rest.substr(0, semicolon));
        rest = semicolon == std::string_view::npos ? std::string_view() : rest.substr(semicolon + 1);
        if (part.size() < 3 || part[1] != '_' || part[2] != '_')
          in.fail("'" + std::string(part) + "' is not a GTDB rank (d__, p__, c__, o__, f__, g__, s__)");
        std::size_t level = next_level;
        while (level < levels.size() && levels[level].letter != part[0]) ++level;
        if (level == levels.size())
          in.fail("'" + std::string(part) + "': unknown rank or out of order (GTDB lineages "
                  "go d__, p__, c__, o__, f__, g__, s__)");
        next_level = level + 1;
        const std::string_view name = trim(part.substr(3));
        if (name.empty()) continue;  // "s__": the level is not named; its children hang higher
        const std::string parent = prefix;
        if (!prefix.empty()) prefix += ';';
        prefix.append(part.substr(0, 3));
        prefix.append(name);
        auto [it, added] = taxa.try_emplace(prefix, Taxon{parent, levels[level].rank, std::string(name)});
        if (!added && it->second.parent != parent)
          in.fail("'" + prefix + "' has two parents");  // cannot happen: the prefix holds it
      }
      if (prefix.empty()) in.fail("empty lineage");
      auto [it, added] = lineage_of.try_emplace(accession, prefix);
      if (!added && it->second != prefix)
        in.fail("genome " + accession + " has two lineages: '" + it->second + "' and '" + prefix + "'");
    }
  }

  // Ids in sorted order of the prefixes: the same whatever the line order.
  const std::uint64_t range = std::uint64_t(gtdb_last_taxid) - gtdb_first_taxid + 1;
  std::unordered_map<std::string, taxid_t> id_of;
  std::unordered_set<std::uint64_t> taken;
  if (taxa.size() >= range) throw std::runtime_error("GTDB taxonomy: too many taxa");
  for (const auto& [prefix, taxon] : taxa) {
    std::uint64_t slot = fnv1a(prefix) % range;
    while (!taken.insert(slot).second) slot = (slot + 1) % range;
    id_of.emplace(prefix, taxid_t(gtdb_first_taxid + slot));
  }

  std::vector<Node> nodes;
  nodes.push_back(Node{root_taxon, root_taxon, Rank::none, "root"});
  for (const auto& [prefix, taxon] : taxa)
    nodes.push_back(Node{id_of.at(prefix), taxon.parent.empty() ? root_taxon : id_of.at(taxon.parent),
                         taxon.rank, taxon.name});
  GtdbTaxonomy result;
  result.taxonomy = Taxonomy::from_nodes(std::move(nodes));
  for (const auto& [accession, prefix] : lineage_of) result.genomes.add(accession, id_of.at(prefix));
  return result;
}

std::optional<taxid_t> GenomeTaxa::find(std::string_view accession) const {
  const std::string exact(accession);
  if (auto it = map_.find(exact); it != map_.end()) return it->second;
  if (exact.size() > 4 && exact.compare(0, 2, "GC") == 0 && exact[3] == '_' &&
      (exact[2] == 'A' || exact[2] == 'F')) {
    std::string twin = exact;
    twin[2] = exact[2] == 'A' ? 'F' : 'A';
    if (auto it = map_.find(twin); it != map_.end()) return it->second;
  }
  return std::nullopt;
}

std::optional<std::string> assembly_accession_of_file(std::string_view path) {
  const std::size_t slash = path.find_last_of('/');
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  // GCA_ or GCF_, digits, '.', digits.
  if (name.size() < 7 || name.substr(0, 2) != "GC" || (name[2] != 'A' && name[2] != 'F') ||
      name[3] != '_')
    return std::nullopt;
  std::size_t i = 4;
  const auto digits = [&] {
    const std::size_t start = i;
    while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i]))) ++i;
    return i > start;
  };
  if (!digits() || i >= name.size() || name[i] != '.') return std::nullopt;
  ++i;
  if (!digits()) return std::nullopt;
  return std::string(name.substr(0, i));
}

bool is_gtdb_taxonomy(const Taxonomy& taxonomy) {
  if (taxonomy.size() < 2) return false;
  for (const Node& node : taxonomy.nodes())
    if (node.id != root_taxon && (node.id < gtdb_first_taxid || node.id > gtdb_last_taxid))
      return false;
  return true;
}

}  // namespace metawarp::taxonomy

namespace metawarp::taxonomy {

std::string_view taxonomy_source(const Taxonomy& taxonomy) {
  if (taxonomy.empty()) return "none (built with --no-taxonomy)";
  if (is_gtdb_taxonomy(taxonomy))
    return "GTDB (synthesised from GTDB's taxonomy TSV: taxids from 1000000000, stable)";
  return "NCBI (nodes.dmp and names.dmp)";
}

}  // namespace metawarp::taxonomy
