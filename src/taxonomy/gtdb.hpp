#pragma once
// A taxonomy synthesised from GTDB's taxonomy TSV (bac120_taxonomy.tsv,
// ar53_taxonomy.tsv), without NCBI dumps:
//   RS_GCF_000005845.2<TAB>d__Bacteria;p__Pseudomonadota;...;s__Escherichia coli
// - one node per distinct lineage prefix ("d__Bacteria;p__Pseudomonadota"),
//   its rank from the prefix letter (d domain, p phylum, c class, o order,
//   f family, g genus, s species), its name without the prefix; all under
//   root (taxid 1, "root");
// - stable ids: taxid = gtdb_first_taxid + a hash of the lineage prefix
//   (FNV-1a), a collision moving the later prefix in sorted order up by one,
//   so the same file gives the same ids whatever its line order, and a new
//   GTDB release keeps the ids of the taxa it keeps. They lie above every
//   NCBI taxid and below 2^31 (report readers that hold taxids in signed
//   32-bit integers, as R does, read them);
// - genomes: the accession without GTDB's RS_/GB_ prefix -> its species.
// Errors name the file, the line and the problem.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "taxonomy/taxonomy.hpp"

namespace metawarp::taxonomy {

inline constexpr taxid_t gtdb_first_taxid = 1'000'000'000;
inline constexpr taxid_t gtdb_last_taxid = 0x7fffffff;

// Genome assembly accession -> taxon ("GCF_000005845.2" -> its species).
class GenomeTaxa {
 public:
  void add(std::string accession, taxid_t taxid) { map_.emplace(std::move(accession), taxid); }
  bool empty() const { return map_.empty(); }
  std::size_t size() const { return map_.size(); }
  // The accession as given, else its GCA/GCF twin (same number and
  // version); nullopt when it is not listed.
  std::optional<taxid_t> find(std::string_view accession) const;

 private:
  std::unordered_map<std::string, taxid_t> map_;
};

struct GtdbTaxonomy {
  Taxonomy taxonomy;
  GenomeTaxa genomes;

  // One or more TSV files (bacteria and archaea), plain or gzip.
  static GtdbTaxonomy load(const std::vector<std::filesystem::path>& files);
};

// The assembly accession a GTDB (or NCBI Datasets) genome file's name
// starts with: "GCF_000005845.2" from "GCF_000005845.2_genomic.fna.gz" or
// ".../GCA_000005845.2_ASM584v2_genomic.fna"; nullopt when it has none.
std::optional<std::string> assembly_accession_of_file(std::string_view path);

// True for a taxonomy load() made: every taxon but the root in the GTDB id range.
bool is_gtdb_taxonomy(const Taxonomy& taxonomy);

// Where a database's taxonomy came from, told from its taxa (the database
// file does not record it): "GTDB ..." when is_gtdb_taxonomy(), "none ..."
// when empty, else "NCBI ...".
std::string_view taxonomy_source(const Taxonomy& taxonomy);

}  // namespace metawarp::taxonomy
