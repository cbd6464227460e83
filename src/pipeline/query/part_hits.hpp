#pragma once
// The seam of the partitioned query (partitioned_query.hpp): finding the hits
// of many reads in one part of the database at a time. The CPU collector
// looks the features up in the part's FeatureIndex; a GPU collector would
// upload the part and look them up on the device. Whatever finds them, the
// hits of a read over all parts are the hits the whole database gives it.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "db/database.hpp"
#include "db/partial_load.hpp"
#include "metawarp/host/large_vector.hpp"
#include "pipeline/query/classifier.hpp"
#include "pipeline/query/query.hpp"

namespace metawarp::pipeline {

// The reads of a batch, sketched: read i's features are
// features[offsets[i], offsets[i + 1]) at read positions positions[...] (the
// same range; Classifier::sketch_read), its shape shapes[i].
struct SketchedBatch {
  std::vector<sketch::feature_t> features;
  std::vector<std::uint32_t> positions;
  std::vector<std::uint64_t> offsets{0};  // reads + 1
  std::vector<ReadShape> shapes;
  std::size_t reads() const { return shapes.size(); }
};

// The hits of a batch's features, gathered part by part: once the part
// holding the batch's feature i has been collected, its whole list is
// locations[list_start[i], list_start[i] + list_sizes[i]) (size 0 before,
// and when no part holds it). Each part appends its lists, so the memory is
// that of the hits and 12 bytes a feature, however many parts there are (a
// feature lies in one part); the evidence column needs each feature's list.
// The locations are not zeroed when they grow (LargeVector's allocator): the
// GPU's collector resizes them, then copies every hit in, and zeroing tens of
// gigabytes of hits on one thread cost as much as the copy.
struct BatchHits {
  host::LargeVector<sketch::Location> locations;
  std::vector<std::uint64_t> list_start;  // one per feature of the batch
  std::vector<std::uint32_t> list_sizes;  // one per feature of the batch
  // Empty, for a batch of `features` features: before its first part.
  void reset(std::size_t features) {
    locations.clear();
    list_start.assign(features, 0);
    list_sizes.assign(features, 0);
  }
  std::span<const sketch::Location> list(std::size_t i) const {
    return std::span(locations).subspan(list_start[i], list_sizes[i]);
  }
};

// The two halves of Classifier::classify around the hits, shared by the
// engines that find the hits elsewhere (the part walks, the MPI engine):
// `reads` sketched into `out` (its earlier content replaced), and, once
// `hits` holds every feature's whole list, results[i] for read i of `batch`,
// as Classifier::classify gives it. `lists` is scratch.
void sketch_reads(const Classifier& classifier, std::span<const ReadView> reads,
                  SketchedBatch& out);
void decide_reads(const Classifier& classifier, const SketchedBatch& batch, const BatchHits& hits,
                  std::span<ReadResult> results, ClassifierScratch& scratch,
                  std::vector<std::span<const sketch::Location>>& lists);

// A part's lists of a walk's reads, kept by one process for another that
// decides the reads (the MPI engine, pipeline/query/mpi_engine.hpp): chunk by
// chunk as the decider cut the walk (the same reads give the same chunks),
// which of its slots (a read window's features) have a list in the part (a
// bit per slot), those lists' lengths, and the lists in slot order
// (kernels/kept_hits.hpp). A length is a byte here: the database's longest
// list (at most 255) decides whether a query can use this.
struct KeptLists {
  std::vector<std::uint64_t> chunk_hits;    // per chunk: its lists' locations
  std::vector<std::uint64_t> chunk_lists;   // per chunk: its slots with a list
  host::LargeVector<std::uint32_t> masks;   // per chunk, ceil(slots / 32) words
  host::LargeVector<std::uint8_t> lengths;  // the lists' lengths, chunk after chunk
  host::LargeVector<std::uint32_t> hits;    // the lists, chunk after chunk
  std::uint64_t bytes() const {
    return (chunk_hits.size() + chunk_lists.size()) * sizeof(std::uint64_t) +
           masks.size() * sizeof(std::uint32_t) + lengths.size() +
           hits.size() * sizeof(std::uint32_t);
  }
};

// What a collector that keeps the hits where it finds them does instead (the
// GPU's: the reads' hits stay on the device while the parts pass, and the
// reads are decided there by the resident engine's kernels). The streamed
// engine hands it a walk's reads, not their sketches:
//   start(reads); for each part: use_part, collect(); finish(results).
class PartReadDecider {
 public:
  virtual ~PartReadDecider() = default;
  // The reads of a walk, batch by batch (each valid until finish()); replaces
  // the last walk's.
  virtual void start(const Classifier& classifier,
                     std::span<const std::span<const ReadView>> batches) = 0;
  // Every read of the walk looked up in the current part (use_part).
  virtual void collect() = 0;
  // After the last part: results[b][i] for read i of batch b, as
  // Classifier::classify on the whole database gives it.
  virtual void finish(std::span<const std::span<ReadResult>> results) = 0;
  // Between processes (KeptLists): after start() and one collect(), the
  // lists that collect kept, into `out`; the walk ends there, its reads
  // undecided (another process decides them). And, on the process that
  // decides: lists another process took from the same reads (start() with
  // the same batches) in its part, kept as collect() on that part would.
  virtual void take_kept(KeptLists& out) = 0;
  virtual void add_kept(const KeptLists& lists) = 0;
  // The bytes the walk's reads and their hits hold where the collector keeps
  // them (the GPU's memory), between start() and finish() (-v reports the
  // most; the super-batches' budget counts the host's memory only).
  virtual std::uint64_t held_bytes() const = 0;
};

class PartHitCollector {
 public:
  virtual ~PartHitCollector() = default;
  // The collector as a PartReadDecider where it decides reads classified
  // with `options`, else nullptr (the CPU's; the GPU's with
  // --report-minimizer-data, whose features' hashes only the host has).
  virtual PartReadDecider* read_decider(const ClassifierOptions& options) {
    (void)options;
    return nullptr;
  }
  // The part collect() looks in from now on; `part` (the part `where` of the
  // plan) stays valid until the next call.
  virtual void use_part(const db::FeatureIndex& part, const db::IndexPart& where) = 0;
  // Appends to out[b], for every feature of batches[b] the current part
  // holds, its whole list (a feature as often as the batch has it), setting
  // its list_start and list_sizes; the other features' entries are left as
  // they are. out[b] was reset() for batches[b] before the first part.
  // out.size() == batches.size().
  virtual void collect(std::span<const SketchedBatch> batches, std::span<BatchHits> out) = 0;
  // A hint: `part` (the part `where`) is the one the next use_part will
  // give, so a collector may start bringing it in while collect() works on
  // the current one (the GPU's uploads it on a stream of its own). `part`
  // stays valid until the next collect() returns. The CPU's ignores it.
  virtual void prefetch(const db::FeatureIndex& part, const db::IndexPart& where) {
    (void)part;
    (void)where;
  }
};

// Looks up in the part's FeatureIndex on `threads` threads (a batch each).
std::unique_ptr<PartHitCollector> make_cpu_hit_collector(unsigned threads);

}  // namespace metawarp::pipeline
