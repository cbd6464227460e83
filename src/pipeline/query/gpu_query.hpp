#pragma once
// The GPU query engine: the same per-read results as the CPU Classifier, with
// sketching, lookup, gathering, sorting and candidate scoring on the GPU.
// Implemented in src/pipeline/gpu/ (on the kernels of kernels/query_chunk.hpp)
// when built with CUDA; without CUDA, src/pipeline/no_gpu/ says why not.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <vector>

#include "db/database.hpp"
#include "metawarp/index/lookup_capacity.hpp"
#include "pipeline/query/classifier.hpp"
#include "pipeline/query/part_hits.hpp"
#include "pipeline/query/query.hpp"
#include "pipeline/shard_layout.hpp"

namespace metawarp::pipeline {

struct GpuQueryOptions {
  // The GPUs and the shards per GPU the index is cut into (by feature range,
  // balanced by locations and features); results do not depend on it. Several
  // GPUs read one another's shards (peer access); the lanes are spread over them.
  ShardLayout layout;
  // A worker's batch goes to the GPU in chunks of at most this many bases
  // (a longer single read is a chunk of its own), bounding device memory.
  std::uint64_t chunk_bases = std::uint64_t(32) << 20;
  // Pinned bases each lane holds from the start (0: chunk_bases); a chunk
  // that needs more allocates them then. Pinning costs about 0.17 s per
  // 256 MiB on the H100 host, and its release at exit about 0.05 s more, so
  // a query whose batches are small reserves what they hold (query_command).
  std::uint64_t reserved_bases = 0;
  // GPU lanes (stream + buffers) the worker threads share: a worker takes an
  // idle one per batch. A few lanes overlap one another's copies, kernels and
  // host work; more only queue behind one another's kernels (measured in
  // docs/benchmarks.md).
  std::uint32_t lanes = 8;
};

// Time per stage, summed over all lanes (lanes overlap, so the sums
// can exceed the wall time). GPU stages are measured with CUDA events.
struct GpuQueryStats {
  std::uint64_t database_bytes = 0;  // device footprint of the database, all GPUs
  std::vector<int> devices;          // the GPUs, in layout order
  std::vector<std::uint64_t> device_bytes;  // the database's bytes on each of them
  std::uint64_t shards = 0;
  double upload_seconds = 0;         // database to the GPU, lookup table built
  std::uint64_t lanes = 0;           // lanes made (one stream each)
  std::uint64_t chunks = 0;
  std::uint64_t reads = 0;
  std::uint64_t hits = 0;            // locations gathered
  double pack_seconds = 0;           // host: bases into pinned buffers
  double copy_in_seconds = 0;        // GPU: host-to-device
  double sketch_lookup_seconds = 0;  // GPU: sketch, lookup, count, scan
  double gather_sort_seconds = 0;    // GPU: gather locations, segmented sort
  double candidates_seconds = 0;     // GPU: top candidates per read
  double copy_out_seconds = 0;       // GPU: device-to-host
  double assign_seconds = 0;         // host: classify::assign
};

class GpuQueryEngine : public QueryEngine {
 public:
  virtual GpuQueryStats stats() const = 0;
  // Classifies with these options from now on, on the same upload and lanes
  // (a server's next query). Only while no classifier of the engine is in
  // use; throws std::invalid_argument for options out of range, as making
  // the engine does, and then keeps the old ones.
  virtual void use_options(const ClassifierOptions& classifier) = 0;
};

// Uploads the database to the GPU. Throws std::runtime_error when no GPU can
// be used (saying why) or the database does not fit in GPU memory, and
// std::invalid_argument for classifier options out of range, a device number
// that does not exist or 0 lanes. `db` must outlive the engine.
std::unique_ptr<GpuQueryEngine> make_gpu_query_engine(const db::Database& db,
                                                      const ClassifierOptions& classifier,
                                                      const GpuQueryOptions& gpu = {});

// A database loaded for the GPU query: its index goes to the GPU while the
// file is read (the copies overlap the reading, so the query can start right
// after the load), and the engine works on that upload. The same checks,
// errors and results as db::load then make_gpu_query_engine; nothing uploaded
// is used unless the whole file was read and checked.
struct GpuLoadedDatabase {
  std::unique_ptr<db::Database> database;  // on the heap: the engine refers to it
  std::unique_ptr<GpuQueryEngine> engine;  // declared last: goes first
};
GpuLoadedDatabase load_for_gpu_query(const std::filesystem::path& path,
                                     const ClassifierOptions& classifier,
                                     const GpuQueryOptions& gpu = {});

// The partitioned query's hits on the GPU (pipeline/query/part_hits.hpp): each
// part is uploaded in the layout's shards (two parts on the GPUs at most: the
// one in use and the one used before or prefetched; one when two do not
// fit); collect() sends the reads' features,
// looks them up and gathers their locations on the GPU (the first of the
// layout; the others' shards through peer access) and brings every read's
// hits back. The same hits as make_cpu_hit_collector. Unless the options
// list the features' hashes (--report-minimizer-data), it is also a
// PartReadDecider (read_decider()): the reads go to the GPU once per walk,
// their hits stay there while the parts pass, and the resident engine's
// kernels decide them (pipeline/gpu/kept_chunks.hpp).
struct GpuPartStats {
  std::uint64_t parts_uploaded = 0;      // prefetched ones included
  std::uint64_t parts_reused = 0;        // used while still on the GPU: no upload
  std::uint64_t parts_prefetched = 0;    // uploaded while the previous part was looked in
  std::uint64_t prefetches_skipped = 0;  // the GPU's memory would not hold two parts
  double prefetch_seconds = 0;           // those uploads (overlapping the lookups)
  std::uint64_t largest_part_bytes = 0;  // device bytes of the largest part, all GPUs
  std::uint64_t features = 0;            // features looked up
  std::uint64_t hits = 0;                // locations brought back
  double upload_seconds = 0;    // parts to the GPU, lookups built
  double lookup_seconds = 0;    // features to the GPU, lookup, count, scan, gather
  double download_seconds = 0;  // hits (and their positions) back to the host
  // As a PartReadDecider (the hits kept on the GPU): walks decided there, and
  // the time to send their reads and decide them (lookups: lookup_seconds).
  std::uint64_t kept_walks = 0;
  std::uint64_t kept_hits = 0;  // found and kept on the GPU, or added (add_kept)
  double decide_seconds = 0;
  // Kept lists taken for another process and added from others (MPI).
  double kept_exchange_seconds = 0;
};

class GpuHitCollector : public PartHitCollector {
 public:
  virtual GpuPartStats stats() const = 0;
};

// For a database of these targets. Throws std::runtime_error when no GPU can
// be used (saying why) or the database has 2^32 windows or more, and
// std::invalid_argument for a device that does not exist; use_part throws
// std::runtime_error when a part does not fit in GPU memory.
std::unique_ptr<GpuHitCollector> make_gpu_hit_collector(std::span<const db::Target> targets,
                                                        const ShardLayout& layout);

// A shard's entry in the table of shards on each GPU (kernels::ShardView and
// its first feature; checked in device_database.cpp).
inline constexpr std::uint64_t gpu_shard_table_bytes = 68;

// Device bytes one shard of the GPU query's index takes: the lookup (8-byte
// slots: index::lookup_capacity), the 32-bit list offsets
// and the locations as 32-bit global window ids. Computable without a GPU
// (for `info`).
inline std::uint64_t gpu_shard_bytes(std::uint64_t features, std::uint64_t locations) {
  return index::lookup_capacity(features) * sizeof(std::uint64_t) +
         (features + 1) * sizeof(std::uint32_t) +
         locations * sizeof(std::uint32_t);
}
// What each GPU holds besides its shards: the targets' window bases and the
// table of all `shards` shards.
inline std::uint64_t gpu_per_device_bytes(std::uint64_t targets, std::uint64_t shards) {
  return (targets + 1) * sizeof(std::uint32_t) + shards * gpu_shard_table_bytes;
}
// The whole index in one shard on one GPU.
inline std::uint64_t gpu_database_bytes(std::uint64_t features, std::uint64_t locations,
                                        std::uint64_t targets) {
  return gpu_shard_bytes(features, locations) + gpu_per_device_bytes(targets, 1);
}
inline std::uint64_t gpu_database_bytes(const db::Database& db) {
  return gpu_database_bytes(db.index.feature_count(), db.index.location_count(),
                            db.targets.size());
}

}  // namespace metawarp::pipeline
