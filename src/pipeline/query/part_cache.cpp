#include "pipeline/query/part_cache.hpp"

#include <malloc.h>

#include "pipeline/process_memory.hpp"

namespace metawarp::pipeline {

PartCache::PartCache(const db::PartialDatabase& db, const std::vector<db::IndexPart>& parts,
                     std::uint64_t keep_bytes, unsigned threads)
    : db_(db), parts_(parts), budget_(keep_bytes), threads_(threads), kept_(parts.size()) {}

PartUse PartCache::use(std::size_t p, PartHitCollector& collector) {
  if (in_use_ == p) return {};
  const db::IndexPart& part = parts_[p];
  if (kept_[p]) {
    collector.use_part(*kept_[p], part);
    in_use_ = p;
    return {true, false};
  }
  // One part read for a single use at a time: the last one goes first, with
  // what malloc kept of it (its lookup), before the next is read.
  in_use_.reset();
  transient_.reset();
  ::malloc_trim(0);
  const std::uint64_t bytes = db::index_bytes(part.features(), part.locations());
  db::FeatureIndex loaded = db_.load_part(part, threads_);
  const db::FeatureIndex* given;
  if (kept_bytes_ + bytes <= budget_) {
    kept_[p] = std::move(loaded);
    kept_bytes_ += bytes;
    ++kept_count_;
    given = &*kept_[p];
  } else {
    transient_ = std::move(loaded);
    given = &*transient_;
  }
  collector.use_part(*given, part);
  in_use_ = p;
  return {true, true};
}

void PartCache::prefetch(std::size_t p, PartHitCollector& collector) const {
  if (kept_[p] && in_use_ != p) collector.prefetch(*kept_[p], parts_[p]);
}

std::uint64_t default_keep_bytes(std::uint64_t reads) {
  const std::uint64_t usable = available_memory_bytes() / 4 * 3;
  return usable > reads ? usable - reads : 0;
}

}  // namespace metawarp::pipeline
