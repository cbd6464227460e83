// save(): serialise a Database (docs/database-format.md) through an atomic
// output (output/atomic_file.hpp): a temporary next to the destination,
// renamed into place only once fully written and synced. The sections are
// encoded, checksummed and written by several threads at their offsets
// (file_writer.hpp).
#include "db/database.hpp"
#include "db/file_writer.hpp"
#include "output/atomic_file.hpp"

namespace metawarp::db {

void save(const Database& db, const std::filesystem::path& path, unsigned threads,
          output::Sync sync) {
  // First, so that a path that cannot be written fails before any work. A
  // failed save keeps the database that was there: a failed rebuild must not
  // destroy a working one.
  output::AtomicFile file(path.string(), output::OnFailure::keep_existing, "database",
                          output::Writes::at_offsets);
  const FeatureIndex& index = db.index;
  IndexSource source;
  source.features = index.feature_count();
  source.locations = index.location_count();
  source.feature_values = [&](std::uint64_t first, std::size_t) {
    return index.features().data() + first;
  };
  source.offsets = [&](std::uint64_t first, std::size_t) { return index.offsets().data() + first; };
  source.location_values = [&](std::uint64_t first, std::size_t) {
    return index.locations().data() + first;
  };
  write_database(file, db.params, db.targets, db.taxonomy, source, threads, sync);
}

}  // namespace metawarp::db
