#pragma once
// The parts of a plan as the walks over them need them (the partitioned
// query, partitioned_query.hpp, and the part-walking engine): each part is
// read from the file (db::PartialDatabase::load_part: pread, chunk checksums,
// decoding) at its first use, and kept in host memory while the parts kept
// fit in a byte budget, so that every later walk hands it to the collector
// without reading the file again (a part read once is a part the file had at
// the start: load_part checked it then). Parts beyond the budget are read
// again at each use, one such part in memory at a time, as without a cache.
// Which parts are kept decides no result: the collector gets the same index.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "db/partial_load.hpp"
#include "pipeline/query/part_hits.hpp"

namespace metawarp::pipeline {

// What PartCache::use did.
struct PartUse {
  bool switched = false;   // the collector was given the part (not already in use)
  bool from_file = false;  // it was read from the file
};

class PartCache {
 public:
  // `parts` (a plan's) and `db` must outlive the cache; `keep_bytes`: the
  // parts' db::index_bytes kept at most (0: none kept, one part at a time);
  // `threads`: load_part's.
  PartCache(const db::PartialDatabase& db, const std::vector<db::IndexPart>& parts,
            std::uint64_t keep_bytes, unsigned threads);

  // Part p to `collector` (use_part) unless it is the part in use: the kept
  // copy, else read from the file (kept when it fits in the budget). Throws
  // what load_part throws.
  PartUse use(std::size_t p, PartHitCollector& collector);
  // Tells `collector` which part follows the one in use (PartHitCollector::
  // prefetch), when that part is kept: a part not kept is read only when used.
  void prefetch(std::size_t p, PartHitCollector& collector) const;

  std::size_t kept_parts() const { return kept_count_; }
  std::uint64_t kept_bytes() const { return kept_bytes_; }

 private:
  const db::PartialDatabase& db_;
  const std::vector<db::IndexPart>& parts_;
  std::uint64_t budget_;
  unsigned threads_;
  std::vector<std::optional<db::FeatureIndex>> kept_;  // per part
  std::optional<db::FeatureIndex> transient_;          // a part read for one use only
  std::optional<std::size_t> in_use_;
  std::size_t kept_count_ = 0;
  std::uint64_t kept_bytes_ = 0;
};

// The budget of the parts kept when nothing else says: three quarters of the
// memory the system has available now (MemAvailable) less `reads` (the reads
// in flight, with their allocator slack); 0 where that cannot be read.
std::uint64_t default_keep_bytes(std::uint64_t reads);

}  // namespace metawarp::pipeline
