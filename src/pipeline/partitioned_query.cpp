#include "pipeline/partitioned_query.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>
#include <stdexcept>

#include "metawarp/host/clock.hpp"
#include "metawarp/host/ordered_pipeline.hpp"
#include "metawarp/host/parallel_for.hpp"
#include "pipeline/query_batch.hpp"

namespace metawarp::pipeline {

std::uint64_t default_hit_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  const std::uint64_t eighth =
      pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) / 8 : 0;
  return std::clamp<std::uint64_t>(eighth, std::uint64_t(64) << 20, std::uint64_t(4) << 30);
}

namespace {

// Batches cut together; their hits are collected part by part.
struct SuperBatch {
  std::vector<Batch> batches;  // [0, count) in use; more are spare
  std::size_t count = 0;
  std::uint64_t text_bytes = 0;  // mates 1 (or single reads) text
};

// What the classifying step keeps from super-batch to super-batch (one
// thread runs it, so one copy: the hits' memory is held once).
struct ClassifyState {
  std::vector<ParsedBatch> parsed;
  std::vector<SketchedBatch> sketches;
  std::vector<std::vector<PartHits>> hits;  // [part][batch]
  std::vector<ClassifierScratch> scratch;   // per thread
  std::vector<std::vector<std::span<const sketch::Location>>> lists;  // per thread
  std::vector<std::vector<std::span<const std::uint32_t>>> sizes;     // per thread
  std::optional<db::FeatureIndex> loaded;   // the part in memory
  std::size_t loaded_part = 0;
  std::uint64_t super_batches = 0;
};

class PartitionedRun {
 public:
  PartitionedRun(const db::PartialDatabase& db, const std::vector<db::IndexPart>& parts,
                 const QueryOptions& o, const PartitionOptions& p, QueryCounters* counters,
                 PartHitCollector* collector)
      : db_(db),
        parts_(parts),
        options_(o),
        partitions_(p),
        classifier_(db.metadata(), engine_options(o)),
        threads_(std::max(1u, o.threads)),
        own_collector_(collector ? nullptr : make_cpu_hit_collector(threads_)),
        collector_(collector ? *collector : *own_collector_),
        reads_(open_reads(o)),
        writer_(db.metadata(), o, counters ? *counters : own_counters_) {
    if (parts_.empty()) throw std::invalid_argument("a partitioned query needs at least one part");
    if (o.report_minimizer_data)
      throw std::invalid_argument(
          "--report-minimizer-data is not available with --partitions or --max-memory: the "
          "database's feature counts need the whole index in memory");
    // Hits per byte of mates-1 text, until a super-batch has measured it:
    // a base per byte, s features per window stride, the mean list length.
    const db::Database& meta = db.metadata();
    const double mean_list = db.feature_count() == 0
                                 ? 1.0
                                 : double(db.location_count()) / double(db.feature_count());
    hits_per_text_byte_ = double(meta.params.sketch.sketch_size) /
                          double(meta.params.sketch.stride()) * std::max(1.0, mean_list) *
                          (reads_.paired() ? 2.0 : 1.0);
  }

  QuerySummary run(PartitionStats& stats) {
    const auto start = std::chrono::steady_clock::now();
    QuerySummary::Stages& stages = summary_.stages;
    stages.workers = threads_;
    ClassifyState state;
    state.hits.resize(parts_.size());
    state.scratch.resize(threads_);
    state.lists.resize(threads_);
    state.sizes.resize(threads_);

    // Two super-batches: one cut while the other is classified (and written).
    host::OrderedPipeline<SuperBatch> pipeline(2);
    pipeline.source([&](SuperBatch& super) {
      host::Stopwatch clock;
      cut_super_batch(super);
      stages.cut_mates1 += clock.lap();
      return super.count > 0;
    });
    if (reads_.layout() == io::ReadLayout::two_files)
      pipeline.serial([&](SuperBatch& super) {
        host::Stopwatch clock;
        for (std::size_t b = 0; b < super.count; ++b)
          super.batches[b].empty = !reads_.cut_second(super.batches[b].blocks);
        stages.cut_mates2 += clock.lap();
      });
    pipeline.parallel(1, [&](SuperBatch& super, unsigned) { classify(super, state, stats); });
    pipeline.run([&](SuperBatch& super) {
      host::Stopwatch clock;
      for (std::size_t b = 0; b < super.count; ++b) writer_.write(super.batches[b], summary_);
      stages.write += clock.lap();
    });
    const std::vector<double>& waits = pipeline.wait_seconds();
    stages.worker_wait = waits[waits.size() - 2];
    stages.writer_wait = waits.back();
    stats.parts = parts_.size();
    stats.super_batches += state.super_batches;
    for (const db::IndexPart& part : parts_)
      stats.largest_part_bytes =
          std::max(stats.largest_part_bytes, db::index_bytes(part.features(), part.locations()));

    writer_.finish(summary_);
    summary_.seconds = host::seconds_since(start);
    return summary_;
  }

 private:
  // Cuts batches until their hits would fill about hit_memory (estimated
  // from the text), their text a quarter of it, or the input ends.
  void cut_super_batch(SuperBatch& super) {
    super.count = 0;
    super.text_bytes = 0;
    const double budget = double(partitions_.hit_memory);
    const double ratio = hits_per_text_byte_.load() * sizeof(sketch::Location);
    while (!input_done_) {
      if (super.count == super.batches.size()) super.batches.emplace_back();
      Batch& batch = super.batches[super.count];
      throw_if_cancelled(options_);
      if (!reads_.cut_first(batch.blocks, options_.batch_size, max_batch_bytes)) {
        input_done_ = true;
        break;
      }
      batch.empty = false;
      batch.first_file_bytes = reads_.first_raw_bytes_read();
      ++super.count;
      super.text_bytes += batch.blocks.first.bytes.size();
      if (double(super.text_bytes) * ratio >= budget || 4.0 * double(super.text_bytes) >= budget)
        break;
    }
  }

  void classify(SuperBatch& super, ClassifyState& state, PartitionStats& stats) {
    const std::size_t count = super.count;
    QuerySummary::Stages& stages = summary_.stages;
    if (state.parsed.size() < count) {
      state.parsed.resize(count);
      state.sketches.resize(count);
    }
    for (auto& part_hits : state.hits)
      if (part_hits.size() < count) part_hits.resize(count);

    // Parse and sketch every batch once.
    host::Stopwatch clock;
    host::parallel_for(count, threads_, [&](std::size_t b) {
      SketchedBatch& sketched = state.sketches[b];
      sketched.features.clear();
      sketched.offsets.assign(1, 0);
      sketched.shapes.clear();
      if (!parse_batch(reads_.layout(), super.batches[b], state.parsed[b])) return;
      for (const ReadView& read : state.parsed[b].reads) {
        sketched.shapes.push_back(
            classifier_.sketch_read(read.mate1, read.mate2, sketched.features));
        sketched.offsets.push_back(sketched.features.size());
      }
    });
    stages.parse += clock.lap();

    // Each part in turn; every other super-batch walks them backwards, so
    // the part left in memory by one is the first the next one needs.
    const bool backwards = state.super_batches++ % 2 == 1;
    double collected = 0;
    for (std::size_t i = 0; i < parts_.size(); ++i) {
      const std::size_t p = backwards ? parts_.size() - 1 - i : i;
      if (!state.loaded || state.loaded_part != p) {
        state.loaded.reset();  // one part in memory at a time
        state.loaded = db_.load_part(parts_[p], options_.threads);
        state.loaded_part = p;
        collector_.use_part(*state.loaded, parts_[p]);
        ++stats.part_loads;
        stats.load_seconds += clock.lap();
      }
      collector_.collect(std::span(state.sketches).first(count),
                         std::span(state.hits[p]).first(count));
      collected += clock.lap();
    }
    stats.collect_seconds += collected;
    std::uint64_t hit_bytes = 0;
    for (const auto& part_hits : state.hits)
      for (std::size_t b = 0; b < count; ++b)
        hit_bytes += part_hits[b].locations.size() * sizeof(sketch::Location);
    stats.largest_hits_bytes = std::max(stats.largest_hits_bytes, hit_bytes);
    if (hit_bytes > 0 && super.text_bytes > 0)
      hits_per_text_byte_ = double(hit_bytes) / sizeof(sketch::Location) / double(super.text_bytes);

    // Every read's hits over all parts, decided as Classifier::classify does.
    host::parallel_for(count, threads_, [&](std::size_t b, unsigned w) {
      ParsedBatch& parsed = state.parsed[b];
      const SketchedBatch& sketched = state.sketches[b];
      auto& lists = state.lists[w];
      for (std::size_t r = 0; r < parsed.reads.size(); ++r) {
        lists.clear();
        for (std::size_t p = 0; p < parts_.size(); ++p) lists.push_back(state.hits[p][b].read(r));
        if (!classifier_.options().needs_evidence()) {
          parsed.results[r] = classifier_.decide(lists, sketched.shapes[r], state.scratch[w]);
          continue;
        }
        auto& sizes = state.sizes[w];
        sizes.clear();
        const std::uint64_t first = sketched.offsets[r], last = sketched.offsets[r + 1];
        for (std::size_t p = 0; p < parts_.size(); ++p)
          sizes.push_back(std::span(state.hits[p][b].list_sizes).subspan(first, last - first));
        parsed.results[r] =
            classifier_.decide_split(lists, sizes,
                                     std::span(sketched.features).subspan(first, last - first),
                                     sketched.shapes[r], state.scratch[w]);
      }
      writer_.format(super.batches[b], parsed, reads_.paired());
    });
    const double decided = clock.lap();
    stats.decide_seconds += decided;
    stages.classify += collected + decided;
  }

  const db::PartialDatabase& db_;
  const std::vector<db::IndexPart>& parts_;
  const QueryOptions& options_;
  const PartitionOptions& partitions_;
  Classifier classifier_;  // on the metadata: sketches and decides, looks nothing up
  unsigned threads_;
  std::unique_ptr<PartHitCollector> own_collector_;
  PartHitCollector& collector_;
  io::ReadBlockCutter reads_;
  bool input_done_ = false;  // the source's
  std::atomic<double> hits_per_text_byte_{0};
  QueryCounters own_counters_;  // when the caller follows no progress
  QueryWriter writer_;
  QuerySummary summary_;
};

}  // namespace

std::vector<db::IndexPart> plan_partitions(const db::PartialDatabase& db,
                                           const PartitionOptions& options) {
  if (options.partitions == 0 && options.max_memory != 0) {
    try {
      return db.plan_by_bytes(options.max_memory);
    } catch (const std::runtime_error& e) {
      throw std::runtime_error("--max-memory " + std::to_string(options.max_memory) + ": " +
                               e.what());
    }
  }
  std::vector<db::IndexPart> parts = db.plan_parts(std::max<std::size_t>(options.partitions, 1));
  for (const db::IndexPart& part : parts) {
    const std::uint64_t bytes = db::index_bytes(part.features(), part.locations());
    if (options.max_memory != 0 && bytes > options.max_memory)
      throw std::runtime_error("--partitions " + std::to_string(options.partitions) +
                               ": a part of database '" + db.path().string() + "' needs " +
                               std::to_string(bytes) + " bytes, above --max-memory " +
                               std::to_string(options.max_memory) +
                               "; give more partitions, or --max-memory alone");
  }
  return parts;
}

QuerySummary run_partitioned_query(const db::PartialDatabase& db,
                                   const std::vector<db::IndexPart>& parts,
                                   const QueryOptions& options, const PartitionOptions& partitions,
                                   QueryCounters* counters, PartHitCollector* collector,
                                   PartitionStats* stats) {
  if (partitions.hit_memory == 0) throw std::invalid_argument("--hit-memory must be at least 1");
  PartitionStats own_stats;
  return run_with_safe_outputs(options, [&] {
    return PartitionedRun(db, parts, options, partitions, counters, collector)
        .run(stats ? *stats : own_stats);
  });
}

}  // namespace metawarp::pipeline
