#pragma once
// The steps of a build that every executor (CPU, GPU) shares, so both give
// the same targets, taxa and database for the same inputs.
#include <string>
#include <vector>

#include "db/database.hpp"
#include "io/sequence_reader.hpp"
#include "pipeline/build.hpp"
#include "pipeline/ordered_reader.hpp"
#include "pipeline/progress.hpp"

namespace metawarp::pipeline {

// Validated options, expanded input files and the loaded taxonomy. Fails
// before any sketching on bad parameters, missing files or a bad taxonomy.
struct BuildInputs {
  std::vector<std::string> files;
  taxonomy::Taxonomy taxonomy;
};
BuildInputs prepare_build(const BuildOptions& options);

// Target metadata of one reference record (taxid assigned later). Throws
// io::InputError if the record has too many windows for 32-bit window ids.
db::Target make_target(const io::SequenceRecord& record, const std::string& path,
                       const sketch::SketchParams& params);

// Collects targets and headers in target-id order while records stream by.
struct TargetCatalog {
  std::vector<db::Target> targets;
  std::vector<std::string> headers;  // for taxid resolution at the end

  // Appends the record's target and returns its id.
  sketch::target_id_t add(const io::SequenceRecord& record, const std::string& path,
                          const sketch::SketchParams& params);
};

// A progress line "build: files, targets, MB, MB/s" while the inputs are read.
ProgressReporter build_progress(const BuildOptions& options, const ReadCounters& counters,
                                std::size_t files);

// Assigns taxids (header, seqid maps, accession2taxid), embeds the taxonomy
// subset the targets need and fills the summary's counts.
void complete_build(const BuildOptions& options, const BuildInputs& inputs, TargetCatalog catalog,
                    db::Database& database, BuildSummary* summary, const ReadCounters& counters);

}  // namespace metawarp::pipeline
