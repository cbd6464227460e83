#pragma once
// What a build reads, settled before any sketching: the parameters checked,
// the reference files expanded, sorted and each named once, the taxonomy
// loaded. A bad taxonomy or a missing file fails here, not minutes later.
#include <string>
#include <vector>

#include "output/output_check.hpp"
#include "pipeline/build/build_options.hpp"
#include "taxonomy/gtdb.hpp"
#include "taxonomy/taxonomy.hpp"

namespace metawarp::pipeline {

struct BuildInputs {
  // Sorted by path, each file once, so the database does not depend on the
  // order of the command line.
  std::vector<std::string> files;
  std::vector<std::string> repeated_files;  // named more than once (read once)
  taxonomy::Taxonomy taxonomy;              // empty only with allow_no_taxonomy
  taxonomy::GenomeTaxa genomes;             // GTDB: genome accession -> taxon
};

// The parameters checked and the files found; the taxonomy not yet loaded,
// so that whatever must be refused before any work (the database path) can
// be. Throws std::runtime_error / io::InputError naming the option or file.
BuildInputs find_build_inputs(const BuildOptions& options);
// Loads inputs.taxonomy; a build without one (or with an empty one) is an
// error unless options.allow_no_taxonomy.
void load_build_taxonomy(const BuildOptions& options, BuildInputs& inputs);

// Before a build that reads the references `passes` times (once per
// partition): throws std::runtime_error naming the first file that cannot be
// read twice (standard input, a pipe or FIFO, a character device, a
// socket), since a second pass would wait forever or read something else.
void check_rereadable(const std::vector<std::string>& files, unsigned passes);

// Every file the build reads (references, taxonomy dumps, id maps), each with
// what it is, for the check that the database is none of them.
std::vector<output::NamedPath> files_read_by_build(const BuildOptions& options,
                                                   const BuildInputs& inputs);

}  // namespace metawarp::pipeline
