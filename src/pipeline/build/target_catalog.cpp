#include "pipeline/build/target_catalog.hpp"

#include <algorithm>
#include <limits>
#include <unordered_set>

#include "metawarp/sketch/sketch.hpp"
#include "taxonomy/id_mapping.hpp"

namespace metawarp::pipeline {
namespace {

db::Target make_target(const io::SequenceRecord& record, const std::string& path,
                       const sketch::SketchParams& params) {
  const std::uint64_t windows = sketch::window_count(record.sequence.size(), params);
  if (windows > std::numeric_limits<sketch::window_id_t>::max())
    throw io::InputError(path, record.number, "sequence too long for 32-bit window ids");
  db::Target target;
  target.name = std::string(record.id());
  target.accession = taxonomy::accession_of(target.name);
  target.length = record.sequence.size();
  target.windows = std::uint32_t(windows);
  target.source_file = path;
  return target;
}

// Header taxid, then seqid maps, then accession2taxid (loaded only for the
// accessions still unresolved, since those files are huge); the resolver
// checks candidates against the taxonomy (merged ids followed).
void assign_taxids(const BuildOptions& options, const taxonomy::Taxonomy& taxa,
                   const taxonomy::GenomeTaxa& genomes, std::vector<db::Target>& targets,
                   const std::vector<std::string>& headers) {
  taxonomy::TaxidResolver resolver(taxa.empty() ? nullptr : &taxa);
  if (!genomes.empty()) resolver.set_genome_taxa(&genomes);
  for (const auto& file : options.seqid2taxid_files)
    resolver.add_seqid_map(taxonomy::SeqIdMap::load_seqid2taxid(file));
  if (!options.accession2taxid_files.empty()) {
    std::unordered_set<std::string> wanted;
    for (std::size_t i = 0; i < targets.size(); ++i)
      if (!resolver.resolve(headers[i])) {
        wanted.insert(targets[i].accession);
        wanted.insert(targets[i].name);
      }
    std::vector<std::filesystem::path> files(options.accession2taxid_files.begin(),
                                             options.accession2taxid_files.end());
    resolver.add_accession_map(taxonomy::AccessionMap::load_accession2taxid(files, wanted));
  }
  for (std::size_t i = 0; i < targets.size(); ++i)
    targets[i].taxid =
        resolver.resolve(headers[i], targets[i].source_file).value_or(taxonomy::no_taxon);
}

// Names given to more than one target, each once, in order of first use.
std::vector<std::string> duplicate_names(const std::vector<db::Target>& targets) {
  std::unordered_set<std::string_view> seen, reported;
  std::vector<std::string> duplicates;
  for (const db::Target& t : targets)
    if (!seen.insert(t.name).second && reported.insert(t.name).second)
      duplicates.push_back(t.name);
  return duplicates;
}

}  // namespace

sketch::target_id_t TargetCatalog::add(const io::SequenceRecord& record, const std::string& path,
                                       const sketch::SketchParams& params) {
  if (targets_.size() >= std::numeric_limits<sketch::target_id_t>::max())
    throw io::InputError(path, record.number, "too many reference sequences for 32-bit target ids");
  targets_.push_back(make_target(record, path, params));
  headers_.push_back(record.header);
  return sketch::target_id_t(targets_.size() - 1);
}

std::vector<db::Target> TargetCatalog::take_with_taxa(const BuildOptions& options,
                                                      const taxonomy::Taxonomy& taxa,
                                                      const taxonomy::GenomeTaxa& genomes,
                                                      BuildSummary& summary) {
  assign_taxids(options, taxa, genomes, targets_, headers_);
  headers_.clear();
  summary.unmapped_targets = 0;
  summary.unmapped_target_names.clear();
  for (const db::Target& t : targets_)
    if (t.taxid == taxonomy::no_taxon) {
      ++summary.unmapped_targets;
      summary.unmapped_target_names.push_back(t.name);
    }
  summary.duplicate_target_names = duplicate_names(targets_);
  return std::move(targets_);
}

}  // namespace metawarp::pipeline
