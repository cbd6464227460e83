#pragma once
// A writer of format version 3 kept for the tests of older files: the index
// as it is in memory (features, 8-byte offsets, (target, window) locations),
// written through the library's own header and metadata writers
// (db/file_writer.hpp). Versions 1 and 2 differ from 3 only in their
// checksums and header bytes 44 to 47 (file_bytes.hpp: as_version_1;
// relabelled(bytes, 2) for a minhash-window database).
#include <cstring>
#include <vector>

#include "db/checksum.hpp"
#include "db/database.hpp"
#include "db/file_format.hpp"
#include "db/file_writer.hpp"
#include "file_bytes.hpp"

namespace metawarp::db::test {

inline std::vector<char> version_3_bytes(const Database& db) {
  const std::vector<char> targets = serialise_targets(db.targets);
  const std::vector<char> nodes = serialise_nodes(db.taxonomy.nodes());
  const std::vector<char> merged = serialise_merged(db.taxonomy.merged());
  const FeatureIndex& index = db.index;
  const void* data[ff::section_count] = {targets.data(), nodes.data(), merged.data(),
                                         index.features().data(), index.offsets().data(),
                                         index.locations().data()};
  SectionEntry entries[ff::section_count] = {
      {ff::SectionId::targets, 0, targets.size(), db.targets.size(), 0},
      {ff::SectionId::taxonomy_nodes, 0, nodes.size(), db.taxonomy.nodes().size(), 0},
      {ff::SectionId::taxonomy_merged, 8, merged.size(), db.taxonomy.merged().size(), 0},
      {ff::SectionId::features, 4, index.feature_count() * 4, index.feature_count(), 0},
      {ff::SectionId::offsets, 8, index.offsets().size() * 8, index.offsets().size(), 0},
      {ff::SectionId::locations, 8, index.location_count() * 8, index.location_count(), 0},
  };
  const std::vector<std::uint64_t> offsets = section_offsets(entries);
  std::vector<char> bytes(offsets.back(), 0);
  for (std::size_t s = 0; s < ff::section_count; ++s) {
    if (entries[s].bytes > 0) std::memcpy(bytes.data() + offsets[s], data[s], entries[s].bytes);
    entries[s].checksum = chunked_checksum(data[s], entries[s].bytes);
  }
  const std::vector<char> header = file_header(db.params, entries, 3);
  std::memcpy(bytes.data(), header.data(), header.size());
  return bytes;
}

// The file relabelled as `version` (of the same layout and checksums), the
// header resealed.
inline std::vector<char> relabelled(std::vector<char> bytes, std::uint32_t version) {
  std::memcpy(bytes.data() + 4, &version, 4);
  const std::uint64_t header = checksum64(bytes.data(), ff::header_bytes - 8);
  std::memcpy(bytes.data() + ff::header_bytes - 8, &header, 8);
  return bytes;
}

}  // namespace metawarp::db::test
