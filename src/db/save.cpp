// save(): serialise a Database (docs/database-format.md) through an atomic
// output (output/atomic_file.hpp): a temporary next to the destination,
// renamed into place only once fully written and synced. The big arrays are
// checksummed and written by several threads at their offsets
// (parallel_write.hpp).
#include <stdexcept>
#include <string>

#include "db/database.hpp"
#include "db/file_format.hpp"
#include "db/file_writer.hpp"
#include "db/parallel_write.hpp"
#include "output/atomic_file.hpp"

namespace metawarp::db {
namespace {

namespace ff = file_format;

struct SectionData {
  ff::SectionId id;
  const void* data;
  std::uint64_t bytes;
  std::uint64_t count;
};

}  // namespace

void save(const Database& db, const std::filesystem::path& path, unsigned threads) {
  // First, so that a path that cannot be written fails before any work. A
  // failed save keeps the database that was there: a failed rebuild must not
  // destroy a working one.
  output::AtomicFile file(path.string(), output::OnFailure::keep_existing, "database",
                          output::Writes::at_offsets);
  const std::vector<char> targets = serialise_targets(db.targets);
  const std::vector<char> nodes = serialise_nodes(db.taxonomy.nodes());
  const std::vector<char> merged = serialise_merged(db.taxonomy.merged());
  const FeatureIndex& index = db.index;

  const SectionData sections[ff::section_count] = {
      {ff::SectionId::targets, targets.data(), targets.size(), db.targets.size()},
      {ff::SectionId::taxonomy_nodes, nodes.data(), nodes.size(), db.taxonomy.nodes().size()},
      {ff::SectionId::taxonomy_merged, merged.data(), merged.size(),
       db.taxonomy.merged().size()},
      {ff::SectionId::features, index.features().data(),
       index.features().size() * sizeof(feature_t), index.features().size()},
      {ff::SectionId::offsets, index.offsets().data(),
       index.offsets().size() * sizeof(std::uint64_t), index.offsets().size()},
      {ff::SectionId::locations, index.locations().data(),
       index.locations().size() * sizeof(Location), index.locations().size()},
  };

  // The sections first, each at its offset by all threads; the header, which
  // holds their checksums, last. Nothing is visible before commit() anyway.
  const char zeros[ff::alignment] = {};
  SectionEntry entries[ff::section_count];
  for (std::uint32_t i = 0; i < ff::section_count; ++i)
    entries[i] = SectionEntry{sections[i].id, sections[i].bytes, sections[i].count, 0};
  const std::vector<std::uint64_t> offsets = section_offsets(entries);
  for (std::uint32_t i = 0; i < ff::section_count; ++i) {
    const SectionData& s = sections[i];
    entries[i].checksum = write_chunked(file, offsets[i], s.data, s.bytes, threads);
    file.write_at(offsets[i] + s.bytes, zeros, ff::padded(s.bytes) - s.bytes);
  }
  const std::vector<char> header = file_header(db.params, entries);
  file.write_at(0, header.data(), header.size());
  file.commit();
}

}  // namespace metawarp::db
