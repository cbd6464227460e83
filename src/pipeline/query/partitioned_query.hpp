#pragma once
// `metawarp query --partitions N | --max-memory BYTES`: a query over a
// database read part by part (db/partial_load.hpp), for databases larger than
// memory. Its outputs are byte-identical to run_query on the whole database.
//
// The reads are taken in super-batches (many ordinary batches, held in memory
// until their hits are complete); for each part in turn, every read's hits in
// that part are appended to its batch's hits (PartHitCollector, BatchHits);
// after the last part each read's hits are decided by the same code as the
// whole-database query (Classifier::decide_features), and the batches are
// formatted and written in input order by the same writer. The price: a
// super-batch's hits are held until the last part, and every part is given to
// the collector once per super-batch (the last part of one super-batch is
// kept for the next, which walks the parts backwards). Each part is read
// from the file once and kept in host memory while the parts fit in the
// plan's keep_bytes (part_cache.hpp); parts beyond it are read again.
// docs/architecture.md "The partitioned query"; what --max-memory bounds:
// docs/cli-query.md "Databases larger than memory".
#include <cstdint>
#include <vector>

#include "db/partial_load.hpp"
#include "pipeline/query/part_hits.hpp"
#include "pipeline/query/query.hpp"

namespace metawarp::pipeline {

// The default budget of the reads in flight when --max-memory does not set
// it: an eighth of the host's memory, at most 4 GiB (at least 64 MiB). Every
// super-batch reads every part once, so fewer, larger super-batches mean
// fewer part loads (on the 10 Gbp set, 4 parts and 20 M pairs: 1 GiB gave 44
// super-batches and 133 part loads; docs/benchmarks.md).
std::uint64_t default_hit_memory();

// A part smaller than this (db::index_bytes) costs more than it saves: every
// part reads whole 1 MiB checksum chunks of three sections and passes over
// every feature of the super-batch. --partitions N asking for smaller parts
// gets fewer (plan_partitions).
inline constexpr std::uint64_t min_part_bytes = std::uint64_t(64) << 10;
// The least budget of the reads in flight (a super-batch: its text, sketches,
// hits and formatted output).
inline constexpr std::uint64_t min_hit_memory = std::uint64_t(8) << 20;
// What each worker thread holds besides its share of the reads (its stack in
// use, the classifier's and the collector's scratch, malloc's per-thread
// caches), and what reading the reads holds (read-ahead blocks).
inline constexpr std::uint64_t thread_memory = std::uint64_t(2) << 20;
inline constexpr std::uint64_t reader_memory = std::uint64_t(16) << 20;

struct PartitionOptions {
  // Parts of about equal size; 0: as many as the memory needs.
  std::size_t partitions = 0;
  // --max-memory: the resident memory of the whole query, at most; 0: no
  // limit. plan_partitions shares it between a part and the reads in flight.
  std::uint64_t max_memory = 0;
  // A part's db::index_bytes at most, without --max-memory (tests); 0: no limit.
  std::uint64_t part_bytes = 0;
  // --hit-memory: the budget of the reads in flight (a super-batch's text,
  // sketches, hits and output); 0: with --max-memory what the part leaves,
  // else default_hit_memory().
  std::uint64_t hit_memory = 0;

  bool enabled() const { return partitions != 0 || max_memory != 0 || part_bytes != 0; }
  bool operator==(const PartitionOptions&) const = default;
};

// Bytes the reads in flight hold per byte of mates-1 text, before any has
// been measured: a base per byte, both mates' text in each of the two
// super-batches in flight, s features per window stride with their entries
// and mean list of hits, and per read (of 100 bases at least) its views,
// result and output lines.
double bytes_per_text_byte(const db::PartialDatabase& db, bool paired);

// What the process holds when the query is planned, for --max-memory.
struct MemoryInUse {
  std::uint64_t resident = 0;  // bytes resident (program, metadata, taxonomy, classifier)
  unsigned threads = 1;        // the query's worker threads
};

// The parts and the reads' budget of a query.
struct PartitionPlan {
  std::vector<db::IndexPart> parts;
  std::uint64_t hit_memory = 0;  // budget of a super-batch (PartitionOptions::hit_memory)
  // The parts' db::index_bytes kept in host memory once read (PartCache),
  // so that later walks do not read the file again: 0 with --max-memory (it
  // bounds the memory to one part), else default_keep_bytes().
  std::uint64_t keep_bytes = 0;
};

// The least --max-memory a query of `db` runs in: what is in use, the
// threads' and the reader's allowance, a part of the longest location list
// (or min_part_bytes, or the whole index when smaller) and min_hit_memory
// with half again for what malloc keeps of the reads' buffers; 4 MiB more
// (the memory in use moves by a few pages from run to run), in whole MiB.
std::uint64_t least_max_memory(const db::PartialDatabase& db, const MemoryInUse& in_use);

// The plan for `options`: with --max-memory M, of M less what is in use (and
// the threads' and reader's allowance), the part gets half (at least what its
// longest location list needs, the whole index when that fits) and the reads
// two thirds of the rest (a third is for what malloc keeps of their buffers),
// or --hit-memory when given and the part what it leaves; `partitions`
// balanced parts (each within the part's share when M is given), clamped to
// the features and to parts of at least min_part_bytes; else parts of at most
// the part's share (or part_bytes); else one part. Throws
// std::runtime_error naming the option and the least value that works when
// the memory cannot hold the query.
PartitionPlan plan_partitions(const db::PartialDatabase& db, const PartitionOptions& options,
                              const MemoryInUse& in_use = {});

// What the partitioned query did, for --verbose.
struct PartitionStats {
  std::size_t parts = 0;
  std::uint64_t largest_part_bytes = 0;  // db::index_bytes of the largest part
  std::uint64_t super_batches = 0;
  std::uint64_t walks = 0;       // over the parts: one a super-batch, more where it put batches off
  std::uint64_t part_loads = 0;  // parts given to the collector (a part kept for the next walk: once)
  std::uint64_t part_reads = 0;  // of those, read from the file (the others were kept)
  std::size_t kept_parts = 0;    // parts kept in host memory (PartCache)
  std::uint64_t kept_bytes = 0;  // their db::index_bytes
  std::uint64_t largest_hits_bytes = 0;  // the most hits a super-batch held
  std::uint64_t largest_super_batch_bytes = 0;  // the most a super-batch held (as estimated)
  double load_seconds = 0;     // reading parts and giving them to the collector (its uploads)
  double collect_seconds = 0;  // finding the hits in the parts
  double decide_seconds = 0;   // sorting hits, candidates, assignment, formatting
};

// Adds `more` (a later run's) to `sum`: the counts and times summed, the
// largest sizes the larger.
void add(PartitionStats& sum, const PartitionStats& more);

// The streamed engine (query.hpp's QueryEngine): run_query on the database's
// metadata with it gives the outputs of the whole database's query. Every
// query it runs takes the reads in super-batches of about the plan's
// hit_memory; each super-batch walks the parts (db::PartialDatabase::load_part
// through a PartCache of the plan's keep_bytes), the hits found by
// `collector` (nullptr: the CPU's, on the query's threads).
class PartitionedQueryEngine : public QueryEngine {
 public:
  // Summed over the queries it ran.
  virtual PartitionStats stats() const = 0;
  virtual const PartitionPlan& plan() const = 0;
};

// `db` and `collector` must outlive the engine. Throws std::invalid_argument
// for classifier options out of range or a plan without parts or hit memory.
std::unique_ptr<PartitionedQueryEngine> make_partitioned_engine(const db::PartialDatabase& db,
                                                                PartitionPlan plan,
                                                                const ClassifierOptions& options,
                                                                PartHitCollector* collector =
                                                                    nullptr);

// run_query(db.metadata(), options, that engine, counters) for one query;
// `stats`, when given, is added to (one for several samples sums them).
QuerySummary run_partitioned_query(const db::PartialDatabase& db, const PartitionPlan& plan,
                                   const QueryOptions& options, QueryCounters* counters = nullptr,
                                   PartHitCollector* collector = nullptr,
                                   PartitionStats* stats = nullptr);

}  // namespace metawarp::pipeline
