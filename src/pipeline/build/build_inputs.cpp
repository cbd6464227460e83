#include "pipeline/build/build_inputs.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <utility>

#include "io/parse/sequence_reader.hpp"
#include "metawarp/sketch/sketch.hpp"
#include "output/file_kind.hpp"

namespace metawarp::pipeline {
namespace {

// Sorted by path, each file once: a file named twice (also through another
// path: a link) would add every one of its targets twice.
std::vector<std::string> sorted_unique_files(std::vector<std::string> files,
                                             std::vector<std::string>& repeated) {
  std::sort(files.begin(), files.end());
  std::vector<std::string> unique;
  std::set<std::pair<dev_t, ino_t>> seen;
  for (std::string& file : files) {
    struct stat st {};
    const bool known = file != "-" && ::stat(file.c_str(), &st) == 0;
    const bool again = known ? !seen.emplace(st.st_dev, st.st_ino).second
                             : !unique.empty() && unique.back() == file;
    if (again) {
      repeated.push_back(std::move(file));
      continue;
    }
    unique.push_back(std::move(file));
  }
  return unique;
}

}  // namespace

BuildInputs find_build_inputs(const BuildOptions& options) {
  std::string why;
  if (!sketch::valid(options.params.sketch, &why)) throw std::runtime_error(why);
  if (options.params.max_locations_per_feature < 1)
    throw std::runtime_error("--max-locations-per-feature must be at least 1");
  if (options.taxonomy_dir.empty() && options.gtdb_taxonomy_files.empty() &&
      !options.allow_no_taxonomy)
    throw std::runtime_error(
        "no taxonomy given: without one every read would be unclassified; give --taxonomy DIR "
        "(NCBI nodes.dmp and names.dmp), or --no-taxonomy to build a database that reports "
        "reference targets only (query --top-hits)");
  BuildInputs inputs;
  inputs.files = sorted_unique_files(io::expand_inputs(options.references), inputs.repeated_files);
  if (inputs.files.empty()) throw std::runtime_error("no reference sequence files found");
  return inputs;
}

void load_build_taxonomy(const BuildOptions& options, BuildInputs& inputs) {
  if (!options.gtdb_taxonomy_files.empty()) {
    taxonomy::GtdbTaxonomy gtdb = taxonomy::GtdbTaxonomy::load(options.gtdb_taxonomy_files);
    inputs.taxonomy = std::move(gtdb.taxonomy);
    inputs.genomes = std::move(gtdb.genomes);
    if (inputs.genomes.empty())
      throw std::runtime_error("--gtdb-taxonomy lists no genomes: every read would be "
                               "unclassified");
    return;
  }
  if (options.taxonomy_dir.empty()) return;
  inputs.taxonomy = taxonomy::Taxonomy::load_ncbi(options.taxonomy_dir);
  if (inputs.taxonomy.empty() && !options.allow_no_taxonomy)
    throw std::runtime_error("taxonomy '" + options.taxonomy_dir.string() +
                             "' holds no taxa (empty nodes.dmp): every read would be "
                             "unclassified; give a complete NCBI taxonomy, or --no-taxonomy");
}

void check_rereadable(const std::vector<std::string>& files, unsigned passes) {
  if (passes <= 1) return;
  for (const std::string& file : files) {
    struct stat st {};
    std::string problem;
    if (file == "-")
      problem = "standard input ('-') can be read only once";
    else if (::stat(file.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
      problem = "'" + file + "' is " + output::file_kind(st) + ", which can be read only once";
    else
      continue;  // a regular file, or one the read will report
    throw std::runtime_error(problem + ", and a build in " + std::to_string(passes) +
                             " partitions reads the references once per partition: give "
                             "regular files, or build in one partition");
  }
}

std::vector<output::NamedPath> files_read_by_build(const BuildOptions& options,
                                                   const BuildInputs& inputs) {
  std::vector<output::NamedPath> files;
  for (const std::string& file : inputs.files) files.push_back({"reference", file});
  if (!options.taxonomy_dir.empty())
    for (const auto& path : taxonomy::Taxonomy::ncbi_files(options.taxonomy_dir))
      files.push_back({"--taxonomy", path.string()});
  for (const auto& file : options.gtdb_taxonomy_files)
    files.push_back({"--gtdb-taxonomy", file.string()});
  for (const std::string& file : options.seqid2taxid_files) files.push_back({"--seqid2taxid", file});
  for (const std::string& file : options.accession2taxid_files)
    files.push_back({"--accession2taxid", file});
  return files;
}

}  // namespace metawarp::pipeline
