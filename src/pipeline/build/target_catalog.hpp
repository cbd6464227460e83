#pragma once
// The build's reference targets: one per record, numbered in reading order,
// then given their taxa (header, seqid maps, accession2taxid) once all are read.
#include <cstdint>
#include <string>
#include <vector>

#include "db/database.hpp"
#include "io/parse/sequence_reader.hpp"
#include "pipeline/build/build_options.hpp"
#include "taxonomy/gtdb.hpp"

namespace metawarp::pipeline {

class TargetCatalog {
 public:
  // Appends the record's target and returns its id. Throws io::InputError
  // when the record has too many windows for 32-bit window ids, or there are
  // too many records for 32-bit target ids.
  sketch::target_id_t add(const io::SequenceRecord& record, const std::string& path,
                          const sketch::SketchParams& params);
  const std::vector<db::Target>& targets() const { return targets_; }

  // The targets with their taxids (resolved against `taxa`, merged ids
  // followed); notes in `summary` the targets left without a taxon and the
  // names given to more than one target.
  // `genomes` (GTDB) maps targets by their file's assembly accession last.
  std::vector<db::Target> take_with_taxa(const BuildOptions& options,
                                         const taxonomy::Taxonomy& taxa,
                                         const taxonomy::GenomeTaxa& genomes,
                                         BuildSummary& summary);

 private:
  std::vector<db::Target> targets_;
  std::vector<std::string> headers_;  // for taxid resolution at the end
};

}  // namespace metawarp::pipeline
