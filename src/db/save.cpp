// save(): serialise a Database (docs/database-format.md) through an atomic
// output (output/atomic_file.hpp): a temporary next to the destination,
// renamed into place only once fully written and synced. The sections are
// encoded, checksummed and written by several threads at their offsets
// (file_writer.hpp).
#include "db/database.hpp"
#include "db/file_writer.hpp"
#include "output/atomic_file.hpp"

namespace metawarp::db {

void save(const Database& db, const IndexSource& index, const std::filesystem::path& path,
          unsigned threads, output::Sync sync) {
  // First, so that a path that cannot be written fails before any work. A
  // failed save keeps the database that was there: a failed rebuild must not
  // destroy a working one.
  output::AtomicFile file(path.string(), output::OnFailure::keep_existing, "database",
                          output::Writes::at_offsets);
  write_database(file, db.params, db.targets, db.taxonomy, index, threads, sync);
}

void save(const Database& db, const std::filesystem::path& path, unsigned threads,
          output::Sync sync) {
  save(db, index_source(db.index), path, threads, sync);
}

}  // namespace metawarp::db
