#include "taxonomy/rank.hpp"

#include <array>
#include <cstddef>

namespace metawarp::taxonomy {
namespace {

// Indexed by the enum's value; must list every Rank in declaration order.
constexpr std::array<std::string_view, std::size_t(Rank::root) + 1> rank_names{
    "no rank",          "clade",       "sequence",     "strain",
    "isolate",          "serotype",    "serogroup",    "genotype",
    "morph",            "biotype",     "forma",        "forma specialis",
    "pathogroup",       "varietas",    "subvariety",   "subspecies",
    "species",          "species subgroup", "species group", "series",
    "subsection",       "section",     "subgenus",     "genus",
    "subtribe",         "tribe",       "subfamily",    "family",
    "superfamily",      "parvorder",   "infraorder",   "suborder",
    "order",            "superorder",  "subcohort",    "cohort",
    "infraclass",       "subclass",    "class",        "superclass",
    "subphylum",        "phylum",      "superphylum",  "subkingdom",
    "kingdom",          "realm",       "superkingdom", "domain",
    "cellular root",    "acellular root", "root",
};

constexpr std::array<std::string_view, canonical_rank_count> canonical_names{
    "sequence", "subspecies", "species", "genus",  "family", "order",
    "class",    "phylum",     "kingdom", "domain", "root",
};

}  // namespace

std::string_view rank_name(Rank r) {
  const auto i = std::size_t(r);
  return i < rank_names.size() ? rank_names[i] : std::string_view{"unknown rank"};
}

std::optional<Rank> rank_from_name(std::string_view name) {
  // The common ranks are near the front of a scan ordered by frequency in
  // nodes.dmp, which keeps loading 1.4 M nodes cheap without a hash table.
  static constexpr std::array<Rank, 3> frequent{Rank::species, Rank::none, Rank::genus};
  for (const Rank r : frequent)
    if (rank_names[std::size_t(r)] == name) return r;
  for (std::size_t i = 0; i < rank_names.size(); ++i)
    if (rank_names[i] == name) return Rank(i);
  return std::nullopt;
}

std::optional<CanonicalRank> canonical_rank_of(Rank r) {
  switch (r) {
    case Rank::sequence: return CanonicalRank::sequence;
    case Rank::strain:
    case Rank::isolate:
    case Rank::serotype:
    case Rank::serogroup:
    case Rank::genotype:
    case Rank::morph:
    case Rank::biotype:
    case Rank::forma:
    case Rank::forma_specialis:
    case Rank::pathogroup:
    case Rank::varietas:
    case Rank::subvariety:
    case Rank::subspecies: return CanonicalRank::subspecies;
    case Rank::species: return CanonicalRank::species;
    case Rank::genus: return CanonicalRank::genus;
    case Rank::family: return CanonicalRank::family;
    case Rank::order: return CanonicalRank::order;
    case Rank::class_: return CanonicalRank::class_;
    case Rank::phylum: return CanonicalRank::phylum;
    case Rank::kingdom: return CanonicalRank::kingdom;
    // "superkingdom" (NCBI before 2025), "domain" (after) and "realm" (the
    // top rank of viruses) are the same level of a ranked lineage.
    case Rank::realm:
    case Rank::superkingdom:
    case Rank::domain: return CanonicalRank::domain;
    case Rank::cellular_root:
    case Rank::acellular_root:
    case Rank::root: return CanonicalRank::root;
    default: return std::nullopt;
  }
}

std::string_view canonical_rank_name(CanonicalRank r) {
  const auto i = std::size_t(r);
  return i < canonical_names.size() ? canonical_names[i] : std::string_view{"unknown rank"};
}

std::optional<CanonicalRank> parse_canonical_rank(std::string_view name) {
  if (name == "superkingdom") return CanonicalRank::domain;
  for (std::size_t r = 0; r < canonical_rank_count; ++r)
    if (canonical_rank_name(CanonicalRank(r)) == name) return CanonicalRank(r);
  return std::nullopt;
}

}  // namespace metawarp::taxonomy
