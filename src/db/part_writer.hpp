#pragma once
// A database written in parts (a build in partitions, larger than memory):
// each part is the index of a range of features, above every feature of the
// parts before it, so the database's index is their concatenation with the
// list offsets rebased (include/metawarp/index/feature_range.hpp). Each
// part's features, list lengths and locations are appended to three spill
// files next to the database as it comes, so that only one part is ever in
// memory, already in the file's encoding (compact_index.hpp: a count of 1, 2
// or 4 bytes, a global window id of 4 or 8): the spills take the bytes the
// database's index will, not twice them, which bounds the disk a build of a
// set larger than the GPUs needs (the spills and the file, about twice the
// database). finish() writes the file through save()'s own writer
// (file_writer.hpp: write_database), copying the spills into it piece by
// piece, and renames it into place: the bytes equal save() of the whole
// database. The spill files and the temporary are
// removed whatever happens (also on SIGINT/SIGTERM; after a SIGKILL, by the
// next write to the same database), and a failure keeps the file that was
// at the path.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <vector>

#include "db/database.hpp"

namespace metawarp::db {

class PartWriter {
 public:
  // Checks the path and creates the temporary at once (as save() does), so
  // that a database that cannot be written fails before any work.
  // `max_locations_per_feature` (the database's parameter) and `targets`
  // (every target, with its window count: known once the first part is
  // built) fix the encoding of the spills; finish() must be given the same.
  // `threads`: for checksumming and writing the file (0: all cores).
  // `sync`: as save()'s.
  PartWriter(const std::filesystem::path& database, std::uint32_t max_locations_per_feature,
             std::span<const Target> targets, unsigned threads = 0,
             output::Sync sync = output::Sync::always);
  ~PartWriter();
  PartWriter(const PartWriter&) = delete;
  PartWriter& operator=(const PartWriter&) = delete;

  // Appends the next part. Throws std::invalid_argument when its first
  // feature is not above the previous parts' last one; std::runtime_error
  // naming the database when a spill file cannot be written.
  void append(const FeatureIndex& part);
  std::uint64_t features() const;
  std::uint64_t locations() const;

  // Writes the database file (the parts appended so far are its index) and
  // makes it the file at the path. Once. Throws std::logic_error when
  // `params` or `targets` would encode the index otherwise than the spills.
  void finish(const DatabaseParams& params, const std::vector<Target>& targets,
              const taxonomy::Taxonomy& taxonomy);

  struct State;  // part_writer.cpp

 private:
  std::unique_ptr<State> state_;
};

}  // namespace metawarp::db
