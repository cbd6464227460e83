#pragma once
// What a database file holds before its index, read without the index: for
// the partitioned query (db/partial_load.hpp), which then reads the index part
// by part. Implemented in load.cpp, with load()'s checks and messages.
#include <cstdint>
#include <filesystem>

#include "db/database.hpp"

namespace metawarp::db {

// Where one of the index sections lies in the file (docs/database-format.md).
struct IndexSectionInfo {
  std::uint64_t offset = 0;    // from the start of the file
  std::uint64_t bytes = 0;     // without padding
  std::uint64_t count = 0;     // elements
  std::uint64_t checksum = 0;  // as the format version defines it
  std::uint32_t element_size = 0;  // bytes per element (version 4: the width of counts, locations)
};

struct DatabaseMetadata {
  Database db;  // params, targets, taxonomy; the index empty
  std::uint32_t version = 0;
  std::uint64_t file_size = 0;
  IndexSectionInfo features, offsets, locations;
};

// load()'s steps 1-9 and 11 (header, section table, targets, taxonomy), the
// index sections only located. Throws std::runtime_error as load() does
// ("database '<path>': <problem>").
DatabaseMetadata load_metadata(const std::filesystem::path& path, unsigned threads = 0);

}  // namespace metawarp::db
