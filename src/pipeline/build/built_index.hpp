#pragma once
// A finished index as a build executor hands it to the driver: on the host
// (the CPU executors), or left where it was finalized (the GPU executors: in
// device memory, gpu/device_index.hpp), so that the file writer reads it
// piece by piece and its download overlaps the write (issue 28). The driver
// writes either kind through source() and db::write_database, so the bytes
// are the same; a caller that keeps the index in memory takes it to the host.
#include <cstdint>
#include <memory>

#include "db/database.hpp"
#include "db/file_writer.hpp"

namespace metawarp::pipeline {

class BuiltIndex {
 public:
  // An index held outside the host's memory.
  class Resident {
   public:
    virtual ~Resident() = default;
    virtual std::uint64_t feature_count() const = 0;
    virtual std::uint64_t location_count() const = 0;
    // The arrays piece by piece, for db::write_database; valid while this lives.
    virtual db::IndexSource source() const = 0;
    // The whole index on the host.
    virtual db::FeatureIndex download() const = 0;
  };

  // A host index is a built index (implicit: the CPU executors return theirs).
  BuiltIndex(db::FeatureIndex host = {}) : host_(std::move(host)) {}
  explicit BuiltIndex(std::unique_ptr<Resident> resident) : resident_(std::move(resident)) {}

  bool on_host() const { return resident_ == nullptr; }
  std::uint64_t feature_count() const;
  std::uint64_t location_count() const;
  // What db::write_database reads; valid while this lives.
  db::IndexSource source() const;
  // The index on the host: the host's, or the resident one downloaded (and
  // then freed).
  db::FeatureIndex to_host() &&;

 private:
  db::FeatureIndex host_;
  std::unique_ptr<Resident> resident_;
};

}  // namespace metawarp::pipeline
