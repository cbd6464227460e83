#pragma once
// Building a read-placement profile (report/read_profile.hpp): reads of
// length L cut from every target of the database, classified by a query
// engine (CPU or GPU: the same BatchClassifier the query's workers use, so
// the profile is what `query` does with such reads, and the same whatever the
// engine, shard layout, thread count or batch size), tallied per source
// (the targets' taxid) by assigned taxon.
//
// The reads: from each target, one every `stride` bases from its start, as
// long as the read (single) or fragment (pairs) fits; mate 1 is the
// fragment's first L bases, mate 2 the reverse complement of its last L. A
// target shorter than that gives none. With an error rate, each base is then
// substituted with that probability, drawn from a hash of (target, read
// start, mate, base): the same reads whatever classifies them. Reads go to
// the engine in calls of batch_size, short targets packed together (an
// engine over a database read in parts, part_walking_engine.hpp, walks
// every part once per call). The targets' sequences are read again
// from the files they were built from (db::Target::source_file, as given to
// `build`, so relative to the folder it ran in), each record checked against
// the target of that name (its length).
#include <cstdint>
#include <filesystem>

#include "db/database.hpp"
#include "pipeline/query/classifier.hpp"
#include "pipeline/query/query.hpp"
#include "report/read_profile.hpp"

namespace metawarp::pipeline {

struct ProfileBuildOptions {
  report::ProfileReads reads;
  unsigned threads = 1;
  std::size_t batch_size = 4096;  // reads per engine call
};

// The classifier options as the profile records them.
report::ProfileClassifier profile_classifier(const ClassifierOptions& options);

// Throws io::InputError for a reference file that cannot be read and
// std::runtime_error naming the file and target when it no longer holds the
// database's target; std::invalid_argument for reads that make no sense
// (L 0, stride 0, a fragment shorter than two mates).
report::ReadProfile build_read_profile(const db::Database& db,
                                       const report::DatabaseIdentity& identity,
                                       const QueryEngine& engine,
                                       const ClassifierOptions& classifier,
                                       const ProfileBuildOptions& options);

// Writes the profile atomically to report::profile_path(database, reads)
// (output/atomic_file.hpp: a failure leaves the file that was there); returns the path.
std::filesystem::path save_read_profile(const report::ReadProfile& profile,
                                        const std::filesystem::path& database);

}  // namespace metawarp::pipeline
