#pragma once
// The pieces of a database file that save() (one database in memory) and
// PartWriter (a database written in parts, part_writer.hpp) both write, so
// the layout of docs/database-format.md is written once: the variable-size
// sections and the header with its section table.
#include <cstdint>
#include <vector>

#include "db/database.hpp"
#include "db/file_format.hpp"

namespace metawarp::db {

// One section as the header describes it.
struct SectionEntry {
  file_format::SectionId id;
  std::uint64_t bytes = 0;     // without padding
  std::uint64_t count = 0;     // elements or records
  std::uint64_t checksum = 0;  // chunked_checksum of its bytes
};

// The variable-size sections' bytes (targets, taxonomy nodes, taxonomy merged).
std::vector<char> serialise_targets(const std::vector<Target>& targets);
std::vector<char> serialise_nodes(const std::vector<taxonomy::Node>& nodes);
std::vector<char> serialise_merged(const std::vector<std::pair<taxid_t, taxid_t>>& merged);

// Where each section starts: the first right after the header, each next one
// after the previous one's padding. Returns the offsets and (last) the file size.
std::vector<std::uint64_t> section_offsets(const SectionEntry (&sections)[file_format::section_count]);

// The header (file_format::header_bytes) for these parameters and sections,
// in section order, with its checksum.
std::vector<char> file_header(const DatabaseParams& params,
                              const SectionEntry (&sections)[file_format::section_count]);

}  // namespace metawarp::db
