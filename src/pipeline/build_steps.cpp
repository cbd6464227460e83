#include "pipeline/build_steps.hpp"

#include <cstdio>
#include <limits>
#include <stdexcept>
#include <unordered_set>

#include "metawarp/sketch/sketch.hpp"
#include "taxonomy/id_mapping.hpp"

namespace metawarp::pipeline {

BuildInputs prepare_build(const BuildOptions& options) {
  std::string why;
  if (!sketch::valid(options.params.sketch, &why)) throw std::runtime_error(why);
  if (options.params.max_locations_per_feature < 1)
    throw std::runtime_error("--max-locations-per-feature must be at least 1");
  BuildInputs inputs;
  inputs.files = io::expand_inputs(options.references);
  if (inputs.files.empty()) throw std::runtime_error("no reference sequence files found");
  // Taxonomy first: a bad taxonomy folder should fail before minutes of sketching.
  if (!options.taxonomy_dir.empty())
    inputs.taxonomy = taxonomy::Taxonomy::load_ncbi(options.taxonomy_dir);
  return inputs;
}

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

sketch::target_id_t TargetCatalog::add(const io::SequenceRecord& record, const std::string& path,
                                       const sketch::SketchParams& params) {
  if (targets.size() >= std::numeric_limits<sketch::target_id_t>::max())
    throw io::InputError(path, record.number, "too many reference sequences for 32-bit target ids");
  targets.push_back(make_target(record, path, params));
  headers.push_back(record.header);
  return sketch::target_id_t(targets.size() - 1);
}

ProgressReporter build_progress(const BuildOptions& options, const ReadCounters& counters,
                                std::size_t files) {
  const auto start = std::chrono::steady_clock::now();
  return ProgressReporter(options.quiet, [&counters, files, start] {
    const double s = seconds_since(start);
    const double mb = double(counters.bytes.load()) / 1e6;
    char line[160];
    std::snprintf(line, sizeof line, "build: %llu/%zu files, %llu targets, %.0f MB, %.1f MB/s",
                  (unsigned long long)counters.files_done.load(), files,
                  (unsigned long long)counters.records.load(), mb, s > 0 ? mb / s : 0.0);
    return std::string(line);
  });
}

namespace {

// Header taxid, then seqid maps, then accession2taxid (loaded only for the
// accessions still unresolved, since those files are huge); the resolver
// checks candidates against the taxonomy (merged ids followed).
std::uint64_t assign_taxids(const BuildOptions& options, const taxonomy::Taxonomy& taxa,
                            std::vector<db::Target>& targets,
                            const std::vector<std::string>& headers) {
  taxonomy::TaxidResolver resolver(taxa.empty() ? nullptr : &taxa);
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
  std::uint64_t unmapped = 0;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    targets[i].taxid = resolver.resolve(headers[i]).value_or(taxonomy::no_taxon);
    unmapped += targets[i].taxid == taxonomy::no_taxon;
  }
  return unmapped;
}

}  // namespace

void complete_build(const BuildOptions& options, const BuildInputs& inputs, TargetCatalog catalog,
                    db::Database& database, BuildSummary* summary, const ReadCounters& counters) {
  const std::uint64_t unmapped =
      assign_taxids(options, inputs.taxonomy, catalog.targets, catalog.headers);
  database.targets = std::move(catalog.targets);
  if (!inputs.taxonomy.empty()) {
    std::vector<taxonomy::taxid_t> ids;
    for (const auto& t : database.targets)
      if (t.taxid != taxonomy::no_taxon) ids.push_back(t.taxid);
    database.taxonomy = inputs.taxonomy.subset_with_ancestors(ids);
  }
  if (!summary) return;
  summary->files = inputs.files.size();
  summary->input_bytes = counters.bytes.load();
  summary->bases = 0;
  for (const auto& t : database.targets) summary->bases += t.length;
  summary->unmapped_targets = unmapped;
}

}  // namespace metawarp::pipeline
