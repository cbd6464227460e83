#pragma once
// The pieces of a database file that save() (one database in memory) and
// PartWriter (a database written in parts, part_writer.hpp) both write, so
// the layout of docs/database-format.md is written once: the variable-size
// sections and the header with its section table.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <vector>

#include "db/database.hpp"
#include "db/file_format.hpp"
#include "output/atomic_file.hpp"

namespace metawarp::db {

// One section as the header describes it.
struct SectionEntry {
  file_format::SectionId id;
  std::uint32_t element_size = 0;  // 0: variable-size records
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
// in section order, with its checksum. `version`: the current one; an older
// one only for tests that make files of older versions.
std::vector<char> file_header(const DatabaseParams& params,
                              const SectionEntry (&sections)[file_format::section_count],
                              std::uint32_t version = format_version);

// The index as a writer holds it (in memory, in spill files, or in GPU
// memory): its sizes, and its arrays in the query layout (database.hpp)
// piece by piece. Each function returns a pointer to n elements from
// position `first` (offsets: n + 1), valid until the same `worker` calls one
// of them again; called from several threads at once, each with its own
// worker number (parallel_write.hpp: ChunkSource).
struct IndexSource {
  std::uint64_t features = 0, locations = 0;
  template <class T>
  using Piece = std::function<const T*(unsigned worker, std::uint64_t first, std::size_t n)>;
  Piece<feature_t> feature_values;
  Piece<std::uint64_t> offsets;
  Piece<Location> location_values;
  // Set by a writer that holds the counts and locations already in the file's
  // encoding (PartWriter's spills, encoded by compact_index.hpp as it is):
  // bytes [first, first + n) of that section, used instead of offsets and
  // location_values.
  Piece<char> count_bytes, location_bytes;
};

// The source of an index in memory (valid while `index` lives).
IndexSource index_source(const FeatureIndex& index);

// Writes the whole database in the current format at its offsets of `file`
// (the sections, each by up to `threads` threads, 0: all cores; the index
// sections encoded on the way, compact_index.hpp; then the padding and the
// header, which holds the checksums) and commits it (`sync`: AtomicFile::commit). save() and PartWriter
// write through this one function, so their bytes are the same.
void write_database(output::AtomicFile& file, const DatabaseParams& params,
                    const std::vector<Target>& targets, const taxonomy::Taxonomy& taxonomy,
                    const IndexSource& index, unsigned threads, output::Sync sync);

// save() (database.hpp) with the index read from `index` instead of db.index,
// which is not read: an index held elsewhere (the GPU build's, in device
// memory) goes to the file piece by piece, through the same writer.
void save(const Database& db, const IndexSource& index, const std::filesystem::path& path,
          unsigned threads, output::Sync sync);

}  // namespace metawarp::db
