#include "pipeline/build/built_index.hpp"

namespace metawarp::pipeline {

std::uint64_t BuiltIndex::feature_count() const {
  return resident_ ? resident_->feature_count() : host_.feature_count();
}

std::uint64_t BuiltIndex::location_count() const {
  return resident_ ? resident_->location_count() : host_.location_count();
}

db::IndexSource BuiltIndex::source() const {
  return resident_ ? resident_->source() : db::index_source(host_);
}

db::FeatureIndex BuiltIndex::to_host() && {
  if (!resident_) return std::move(host_);
  db::FeatureIndex host = resident_->download();
  resident_.reset();
  return host;
}

}  // namespace metawarp::pipeline
