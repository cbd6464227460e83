// save(): serialise a Database (docs/database-format.md) through an atomic
// output (output/atomic_file.hpp): a temporary next to the destination,
// renamed into place only once fully written and synced. The big arrays are
// checksummed and written by several threads at their offsets
// (parallel_write.hpp).
#include <stdexcept>
#include <string>

#include "db/bytes.hpp"
#include "db/checksum.hpp"
#include "db/database.hpp"
#include "db/file_format.hpp"
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

std::vector<char> serialise_targets(const std::vector<Target>& targets) {
  ByteWriter w;
  for (const Target& t : targets) {
    w.u32(t.taxid);
    w.u32(t.windows);
    w.u64(t.length);
    w.string(t.name);
    w.string(t.accession);
    w.string(t.source_file);
  }
  return std::move(w.bytes());
}

std::vector<char> serialise_nodes(const std::vector<taxonomy::Node>& nodes) {
  ByteWriter w;
  for (const taxonomy::Node& n : nodes) {
    w.u32(n.id);
    w.u32(n.parent);
    w.u8(std::uint8_t(n.rank));
    w.string(n.name);
  }
  return std::move(w.bytes());
}

std::vector<char> serialise_merged(const std::vector<std::pair<taxid_t, taxid_t>>& merged) {
  ByteWriter w;
  for (const auto& [from, to] : merged) {
    w.u32(from);
    w.u32(to);
  }
  return std::move(w.bytes());
}

}  // namespace

void save(const Database& db, const std::filesystem::path& path, unsigned threads) {
  // First, so that a path that cannot be written fails before any work. A
  // failed save keeps the database that was there: a failed rebuild must not
  // destroy a working one.
  output::AtomicFile file(path.string(), output::OnFailure::keep_existing, "database");
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
  std::uint64_t checksums[ff::section_count];
  std::uint64_t offset = ff::header_bytes;
  for (std::uint32_t i = 0; i < ff::section_count; ++i) {
    const SectionData& s = sections[i];
    checksums[i] = write_chunked(file, offset, s.data, s.bytes, threads);
    file.write_at(offset + s.bytes, zeros, ff::padded(s.bytes) - s.bytes);
    offset += ff::padded(s.bytes);
  }
  const std::uint64_t file_size = offset;

  ByteWriter header;
  header.raw(ff::magic.data(), ff::magic.size());
  header.u32(format_version);
  header.u32(ff::endian_marker);
  header.u32(std::uint32_t(ff::header_bytes));
  header.u32(ff::hash_function_id);
  header.u32(db.params.sketch.k);
  header.u32(db.params.sketch.window);
  header.u32(db.params.sketch.sketch_size);
  header.u32(db.params.max_locations_per_feature);
  header.u32(db.params.remove_overpopulated_features ? ff::flag_remove_overpopulated : 0);
  header.u32(ff::section_count);
  header.u32(0);  // reserved
  header.u64(file_size);
  offset = ff::header_bytes;
  for (std::uint32_t i = 0; i < ff::section_count; ++i) {
    const SectionData& s = sections[i];
    header.u32(std::uint32_t(s.id));
    header.u32(ff::element_size(s.id));
    header.u64(offset);
    header.u64(s.bytes);
    header.u64(s.count);
    header.u64(checksums[i]);
    offset += ff::padded(s.bytes);
  }
  header.u64(checksum64(header.bytes().data(), header.bytes().size()));
  if (header.bytes().size() != ff::header_bytes)
    throw std::logic_error("database header layout does not match file_format.hpp");
  file.write_at(0, header.bytes().data(), header.bytes().size());
  file.commit();
}

}  // namespace metawarp::db
