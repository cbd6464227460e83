#pragma once
// A resident-style engine (QueryEngine::make_classifier) over a database read
// part by part (db/partial_load.hpp), for callers that cut their own reads
// (profile-db with --partitions or --max-memory): each classify() call
// sketches its reads, walks every part of the plan (each read from the file
// once and kept while the plan's keep_bytes allow: part_cache.hpp), gathering each feature's whole list (PartHitCollector), and decides every
// read with Classifier::decide_features, so its results are those of the
// whole database's Classifier::classify. The query's streamed engine
// (partitioned_query.hpp) does the same for the driver's super-batches; here
// the caller bounds the hits held by the reads it passes per call
// (reads_per_walk).
#include <cstdint>
#include <memory>

#include "db/partial_load.hpp"
#include "pipeline/query/partitioned_query.hpp"
#include "pipeline/query/query.hpp"

namespace metawarp::pipeline {

// Every classifier it makes walks the parts on `threads` threads (one
// classifier at a time is the intent: each holds its parts). `db` must outlive it.
std::unique_ptr<QueryEngine> make_part_walking_engine(const db::PartialDatabase& db,
                                                      PartitionPlan plan,
                                                      const ClassifierOptions& options,
                                                      unsigned threads);

// Reads (pairs when `paired`) of `read_length` bases per call that keep what
// a call holds (text, sketches, hits) within the plan's hit memory, as the
// partitioned query estimates it (bytes_per_text_byte); at least 1.
std::size_t reads_per_walk(const db::PartialDatabase& db, const PartitionPlan& plan,
                           std::uint32_t read_length, bool paired);

}  // namespace metawarp::pipeline
