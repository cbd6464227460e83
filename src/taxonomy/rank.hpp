#pragma once
// NCBI rank names and the canonical ranks used for ranked lineages and LCA.
#include <cstdint>
#include <optional>
#include <string_view>

namespace metawarp::taxonomy {

// Every rank NCBI uses, from low to high, plus `none` ("no rank") and `clade`,
// which have no place in the order. `sequence` is metawarp's own rank for a
// single reference target below everything else; `root` ("root") names the
// top of a tree where a rank is needed (NCBI gives its root "no rank").
enum class Rank : std::uint8_t {
  none,
  clade,
  sequence,
  strain, isolate, serotype, serogroup, genotype, morph, biotype,
  forma, forma_specialis, pathogroup, varietas, subvariety,
  subspecies, species, species_subgroup, species_group,
  series, subsection, section, subgenus, genus,
  subtribe, tribe, subfamily, family, superfamily,
  parvorder, infraorder, suborder, order, superorder,
  subcohort, cohort, infraclass, subclass, class_, superclass,
  subphylum, phylum, superphylum, subkingdom, kingdom, realm,
  superkingdom, domain, cellular_root, acellular_root, root,
};

// NCBI's spelling ("no rank", "forma specialis", "superkingdom", ...).
std::string_view rank_name(Rank r);
// Unknown names map to std::nullopt (the loader reports them).
std::optional<Rank> rank_from_name(std::string_view name);

// Ranks of a ranked lineage, low to high. NCBI's "superkingdom" (before 2025)
// and "domain" (after) are the same level; so are "strain" and the other
// below-species ranks, which land on `subspecies`.
enum class CanonicalRank : std::uint8_t {
  sequence, subspecies, species, genus, family, order, class_, phylum,
  kingdom, domain, root,
};
inline constexpr std::size_t canonical_rank_count = 11;

// The canonical level of an NCBI rank, or nullopt for ranks that have none
// (none, clade, and intermediate ranks such as subgenus or superfamily).
std::optional<CanonicalRank> canonical_rank_of(Rank r);
std::string_view canonical_rank_name(CanonicalRank r);  // "species", "genus", ...
// The canonical rank named "sequence", "subspecies", "species", "genus", ...,
// "domain" (also "superkingdom"), "root"; nullopt for anything else.
std::optional<CanonicalRank> parse_canonical_rank(std::string_view name);

}  // namespace metawarp::taxonomy
