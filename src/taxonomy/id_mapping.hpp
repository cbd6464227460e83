#pragma once
// Reference target -> taxid. Sources, in the order TaxidResolver tries them:
//   1. `taxid|N` or `kraken:taxid|N` in the FASTA header;
//   2. seqid-to-taxid maps (Kraken2's two-column seqid2taxid.map), by the
//      full sequence id, then by its accession;
//   3. NCBI accession2taxid files (by accession.version or accession);
//   4. genome accessions (GTDB, taxonomy/gtdb.hpp) by the assembly
//      accession the reference file's name starts with.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "taxonomy/gtdb.hpp"
#include "taxonomy/taxonomy.hpp"

namespace metawarp::taxonomy {

// The N of the first `taxid|N` (also as `kraken:taxid|N`) anywhere in the
// header, N terminated by '|', whitespace or the end; nullopt if none.
std::optional<taxid_t> taxid_from_header(std::string_view header);

// The sequence id: the header's first word, without a leading '>'.
std::string_view sequence_id_of(std::string_view header);

// The accession(.version) inside a sequence id: "NC_000913.3" from
// "NC_000913.3", "ref|NC_000913.3|", "gi|123|ref|NC_000913.3|" or
// "kraken:taxid|562|NC_000913.3"; the id unchanged if none is recognisable.
std::string accession_of(std::string_view seqid);

// "NC_000913" for "NC_000913.3"; unchanged without a version.
std::string_view accession_without_version(std::string_view accession);

// Kraken2's seqid2taxid.map: "seqid<TAB or spaces>taxid" per line. Lines of
// Kraken2's prelim_map.txt (kraken2-build --add-to-library's) are read too:
// "TAXID seqid taxid" maps, "ACCNUM seqid accession" is skipped (the
// accession of the seqid is looked up in accession2taxid files).
class SeqIdMap {
 public:
  // Plain or gzip. Throws std::runtime_error "file:line: problem" on lines
  // with neither two columns nor a prelim_map line's three, bad taxids, or
  // one seqid with two taxids.
  static SeqIdMap load_seqid2taxid(const std::filesystem::path& path);

  void add(std::string seqid, taxid_t taxid) { map_[std::move(seqid)] = taxid; }
  std::optional<taxid_t> find(std::string_view seqid) const;
  std::size_t size() const { return map_.size(); }

 private:
  std::unordered_map<std::string, taxid_t> map_;
};

// Whether a Kraken2 map file has prelim_map ACCNUM lines: sequences mapped by
// their accession, which only accession2taxid files can resolve.
bool maps_by_accession(const std::filesystem::path& path);

// NCBI accession2taxid ("accession\taccession.version\ttaxid\tgi" with a
// header line), filtered to the wanted accessions because the files are huge.
class AccessionMap {
 public:
  // Keeps rows whose accession or accession.version matches an entry of
  // `wanted` (with or without its version). Plain or gzip files. Throws
  // "file:line: problem" on rows with fewer than 3 columns or bad taxids.
  static AccessionMap load_accession2taxid(const std::vector<std::filesystem::path>& files,
                                           const std::unordered_set<std::string>& wanted);

  void add(std::string_view accession_version, taxid_t taxid);
  // By accession.version first, then by the accession alone, so "NC_000913.3"
  // finds an entry for "NC_000913" and vice versa.
  std::optional<taxid_t> find(std::string_view accession_or_version) const;
  std::size_t size() const { return by_version_.size(); }

 private:
  std::unordered_map<std::string, taxid_t> by_version_;    // "NC_000913.3"
  std::unordered_map<std::string, taxid_t> by_accession_;  // "NC_000913"
};

// Tries the sources in order (see the top of this file). With a taxonomy,
// a candidate must exist in it (merged ids are resolved to their new id);
// one that does not is passed over for the next source. nullopt: unmapped
// (callers count and list those).
class TaxidResolver {
 public:
  explicit TaxidResolver(const Taxonomy* taxonomy = nullptr) : taxonomy_(taxonomy) {}

  void add_seqid_map(SeqIdMap map) { seqid_maps_.push_back(std::move(map)); }
  void add_accession_map(AccessionMap map) { accession_maps_.push_back(std::move(map)); }

  // Must outlive the resolver.
  void set_genome_taxa(const GenomeTaxa* genomes) { genomes_ = genomes; }

  // `header`: a FASTA header line (with or without '>') or a bare sequence
  // id; `file`: the path of the file it came from (for genome accessions).
  std::optional<taxid_t> resolve(std::string_view header, std::string_view file = {}) const;

 private:
  std::optional<taxid_t> accept(std::optional<taxid_t> candidate) const;

  const Taxonomy* taxonomy_;
  std::vector<SeqIdMap> seqid_maps_;
  std::vector<AccessionMap> accession_maps_;
  const GenomeTaxa* genomes_ = nullptr;
};

}  // namespace metawarp::taxonomy
