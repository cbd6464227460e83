#pragma once
// `metawarp query --partitions N | --max-memory BYTES`: a query over a
// database read part by part (db/partial_load.hpp), for databases larger than
// memory. Its outputs are byte-identical to run_query on the whole database.
//
// The reads are taken in super-batches (many ordinary batches, held in memory
// until their hits are complete); for each part in turn, every read's hits in
// that part are collected (PartHitCollector); after the last part each read's
// hits are sorted and decided by the same code as the whole-database query
// (Classifier::decide), and the batches are formatted and written in input
// order by the same writer. The price: a super-batch's hits are held until
// the last part, and every part is read once per super-batch (the last part
// of one super-batch is kept for the next, which walks the parts backwards).
// docs/architecture.md "The partitioned query".
#include <cstdint>
#include <vector>

#include "db/partial_load.hpp"
#include "pipeline/part_hits.hpp"
#include "pipeline/query.hpp"

namespace metawarp::pipeline {

// The default hit budget: an eighth of the host's memory, at most 4 GiB (at
// least 64 MiB). Every super-batch reads every part once, so fewer, larger
// super-batches mean fewer part loads (on the 10 Gbp set, 4 parts and 20 M
// pairs: 1 GiB gave 44 super-batches and 133 part loads; docs/benchmarks.md).
std::uint64_t default_hit_memory();

struct PartitionOptions {
  // Parts of about equal size; 0: as many as max_memory needs.
  std::size_t partitions = 0;
  // Bytes of database (a part's arrays and lookup) held at once; 0: no limit.
  std::uint64_t max_memory = 0;
  // About this many bytes of hits held per super-batch (the reads of a
  // super-batch stop at a quarter of it in text).
  std::uint64_t hit_memory = default_hit_memory();

  bool enabled() const { return partitions != 0 || max_memory != 0; }
};

// The parts for `options`: `partitions` balanced parts (each within
// max_memory when both are given), else parts of at most max_memory bytes,
// else one part. Throws std::runtime_error when max_memory cannot hold one
// feature's locations (naming the least that works) or a balanced part.
std::vector<db::IndexPart> plan_partitions(const db::PartialDatabase& db,
                                           const PartitionOptions& options);

// What the partitioned query did, for --verbose.
struct PartitionStats {
  std::size_t parts = 0;
  std::uint64_t largest_part_bytes = 0;  // db::index_bytes of the largest part
  std::uint64_t super_batches = 0;
  std::uint64_t part_loads = 0;          // parts read (a part kept for the next super-batch: once)
  std::uint64_t largest_hits_bytes = 0;  // the most hits a super-batch held
  double load_seconds = 0;     // reading parts (and building their lookups)
  double collect_seconds = 0;  // finding the hits in the parts
  double decide_seconds = 0;   // sorting hits, candidates, assignment, formatting
};

// run_query's contract (errors, atomic outputs, counters) on the parts of
// `db`. `collector` finds the hits (nullptr: the CPU's, on options.threads);
// `stats`, when given, is added to (one for several samples sums them).
QuerySummary run_partitioned_query(const db::PartialDatabase& db,
                                   const std::vector<db::IndexPart>& parts,
                                   const QueryOptions& options, const PartitionOptions& partitions,
                                   QueryCounters* counters = nullptr,
                                   PartHitCollector* collector = nullptr,
                                   PartitionStats* stats = nullptr);

}  // namespace metawarp::pipeline
