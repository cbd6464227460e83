#include "pipeline/query/partitioned_query.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>

#include "metawarp/host/clock.hpp"
#include "metawarp/host/ordered_pipeline.hpp"
#include "metawarp/host/parallel_for.hpp"
#include "metawarp/sketch/sampling.hpp"
#include "pipeline/out_of_memory.hpp"
#include "pipeline/progress.hpp"
#include "pipeline/query/part_cache.hpp"
#include "pipeline/query/query_batch.hpp"
#include "pipeline/query/query_buffers.hpp"

namespace metawarp::pipeline {

std::uint64_t default_hit_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  const std::uint64_t eighth =
      pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) / 8 : 0;
  return std::clamp<std::uint64_t>(eighth, std::uint64_t(64) << 20, std::uint64_t(4) << 30);
}

double bytes_per_text_byte(const db::PartialDatabase& db, bool paired) {
  const db::Database& meta = db.metadata();
  const double mates = paired ? 2.0 : 1.0;
  const double mean_list = db.feature_count() == 0
                               ? 1.0
                               : double(db.location_count()) / double(db.feature_count());
  const double features = sketch::expected_window_features(meta.params.sketch) /
                          double(meta.params.sketch.stride()) * mates;
  const double per_read = sizeof(ReadView) + sizeof(ReadResult) + sizeof(ReadShape) + 256;
  return 2.0 * mates +
         features * (sizeof(sketch::feature_t) + sizeof(std::uint32_t) + 12.0 +
                     std::max(1.0, mean_list) * sizeof(sketch::Location)) +
         per_read / 100.0;
}

namespace {

// What the classifying step keeps from super-batch to super-batch (one
// thread runs it, so one copy: the hits' memory is held once).
struct ClassifyState {
  std::vector<ParsedBatch> parsed;
  std::vector<SketchedBatch> sketches;
  std::vector<BatchHits> hits;              // per batch, over all parts
  std::vector<ClassifierScratch> scratch;   // per thread
  std::vector<std::vector<std::span<const sketch::Location>>> lists;  // per thread
  std::optional<PartCache> parts;  // the parts read, those kept
  std::uint64_t walks = 0;  // over the parts, by every super-batch
};

// The streamed engine's work on one query: the driver's groups are its
// super-batches (sized by the reads' budget, as measured so far); each is
// parsed and sketched, walked through the parts, decided and formatted.
class PartitionedGroups final : public GroupClassifier {
 public:
  PartitionedGroups(const db::PartialDatabase& db, const PartitionPlan& plan,
                    const Classifier& classifier, PartHitCollector* collector,
                    PartitionStats& stats, const GroupContext& context)
      : db_(db),
        parts_(plan.parts),
        options_(context.options),
        layout_(context.layout),
        writer_(context.writer),
        hit_memory_(plan.hit_memory),
        classifier_(classifier),
        threads_(std::max(1u, context.threads)),
        own_collector_(collector ? nullptr : make_cpu_hit_collector(threads_)),
        collector_(collector ? *collector : *own_collector_),
        stats_(stats) {
    state_.scratch.resize(threads_);
    state_.lists.resize(threads_);
    state_.parts.emplace(db_, parts_, plan.keep_bytes, options_.threads);
    stats_.parts = parts_.size();
    for (const db::IndexPart& part : parts_)
      stats_.largest_part_bytes =
          std::max(stats_.largest_part_bytes, db::index_bytes(part.features(), part.locations()));
    // Until a super-batch has measured it.
    bytes_per_text_byte_ = bytes_per_text_byte(db, layout_ != io::ReadLayout::single);
  }

  // Batches until the super-batch would hold more than hit_memory
  // (estimated from its text, as the super-batches before it measured), or
  // the input ends. The first super-batch, on a prior estimate, takes a
  // quarter of it. A batch's text is at most what the budget allows (one
  // record at least), so one batch does not overshoot it.
  GroupLimits next_group() override {
    const double budget = double(hit_memory_) / (super_batches_cut_++ == 0 ? 4.0 : 1.0);
    const double ratio = bytes_per_text_byte_.load();
    GroupLimits limits;
    limits.batch_bytes = std::size_t(std::clamp(budget / ratio / 4.0, 1.0, double(max_batch_bytes)));
    limits.text_bytes = std::max<std::uint64_t>(1, std::uint64_t(budget / ratio));
    return limits;
  }

  void classify(BatchGroup& super) override {
    naming_out_of_memory(
        "holding the reads in flight and their hits (a super-batch of about " +
            format_bytes(hit_memory_) + ")",
        "lower --hit-memory or --batch-size, or --max-memory to the memory free",
        [&] { classify_group(super); });
  }

  void add_stages(QuerySummary::Stages& stages) const override {
    stages.parse += parse_seconds_;
    stages.classify += classify_seconds_;
  }

 private:
  // What the reads in flight hold once a super-batch is classified and
  // formatted: both super-batches in flight hold their text and output (so
  // this one's counted twice), the classifying step its parses, sketches and
  // hits. Resident (Held::capacity): buffers kept from batch to batch with
  // their capacity (the pages they once filled stay resident), the text
  // blocks with their size (the read-ahead reserves more than it fills). In
  // use (Held::size): what this super-batch's text needs, for the estimate
  // of the next (capacities kept from larger batches would make the text
  // look costlier, and the batches smaller, and so on).
  enum class Held { capacity, size };
  template <class V>
  static std::uint64_t bytes(const V& v, Held held) {
    return (held == Held::capacity ? v.capacity() : v.size()) * sizeof(typename V::value_type);
  }
  static std::uint64_t held_bytes(const BatchGroup& super, const ClassifyState& state,
                                  Held held) {
    std::uint64_t in_flight = 0, classify = 0;
    for (std::size_t b = 0; b < super.count; ++b) {
      const Batch& batch = *super.batches[b];
      const BatchOutput& out = batch.out;
      in_flight += batch.blocks.first.bytes.size() + batch.blocks.second.bytes.size() +
                   bytes(out.tsv, held) + bytes(out.kraken, held) + bytes(out.calls, held) +
                   bytes(out.classified[0], held) + bytes(out.classified[1], held) +
                   bytes(out.unclassified[0], held) + bytes(out.unclassified[1], held) +
                   bytes(out.candidate_taxa_counts, held) + bytes(out.candidate_taxa, held);
      const ParsedBatch& parsed = state.parsed[b];
      const SketchedBatch& sketched = state.sketches[b];
      classify += bytes(parsed.records.mates1, held) + bytes(parsed.records.mates2, held) +
                  bytes(parsed.reads, held) + bytes(parsed.results, held) +
                  bytes(sketched.features, held) + bytes(sketched.positions, held) +
                  bytes(sketched.offsets, held) +
                  bytes(sketched.shapes, held) + hit_bytes(state.hits[b], held);
      for (std::size_t r = 0; r < parsed.reads.size(); ++r)
        classify += bytes(parsed.results[r].evidence, held);
    }
    return 2 * in_flight + classify;
  }
  static std::uint64_t hit_bytes(const BatchHits& hits, Held held) {
    return bytes(hits.locations, held) + bytes(hits.list_start, held) +
           bytes(hits.list_sizes, held);
  }
  // The hits of batches [first, end).
  static std::uint64_t hit_bytes(const ClassifyState& state, std::size_t first, std::size_t end,
                                 Held held) {
    std::uint64_t sum = 0;
    for (std::size_t b = first; b < end; ++b) sum += hit_bytes(state.hits[b], held);
    return sum;
  }

  void classify_group(BatchGroup& super) {
    ClassifyState& state = state_;
    const std::size_t count = super.count;
    if (state.parsed.size() < count) {
      state.parsed.resize(count);
      state.sketches.resize(count);
      state.hits.resize(count);
    }
    if (PartReadDecider* decider = collector_.read_decider(classifier_.options()))
      classify_kept(super, *decider);
    else
      classify_collected(super);
  }

  // The reads' hits kept by the collector (PartReadDecider): one walk over
  // the parts, the reads decided where the hits are.
  void classify_kept(BatchGroup& super, PartReadDecider& decider) {
    ClassifyState& state = state_;
    PartitionStats& stats = stats_;
    const GroupContext context{options_, layout_, writer_, threads_};
    double walked = 0, collected = 0;  // the walk, and the walk less its part loads
    std::uint64_t kept = 0;
    const GroupSeconds seconds = decide_group(
        super, state.parsed, context, [&](auto reads, auto results) {
          host::Stopwatch clock;
          decider.start(classifier_, reads);
          const double loads_before = stats.load_seconds;
          walk(state, stats, [&] { decider.collect(); });
          walked = clock.lap();
          collected = walked - (stats.load_seconds - loads_before);
          kept = decider.held_bytes();  // finish() frees them
          decider.finish(results);
        });
    parse_seconds_ += seconds.parse;
    const double decided = seconds.decide - walked;  // finish() and the formatting
    // What the next super-batches are cut by: what the host holds (the
    // reads' text, results and output), which --hit-memory bounds; the hits
    // are the collector's (the GPU's memory), reported, and grow with it.
    stats.largest_super_batch_bytes =
        std::max(stats.largest_super_batch_bytes, held_bytes(super, state, Held::capacity));
    stats.largest_hits_bytes = std::max(stats.largest_hits_bytes, kept);
    ++stats.super_batches;
    stats.walks += 1;
    stats.collect_seconds += collected;
    stats.decide_seconds += decided;
    classify_seconds_ += collected + decided;
    measure(super, held_bytes(super, state, Held::size));
  }

  // The hits brought to the host (PartHitCollector::collect), decided there.
  void classify_collected(BatchGroup& super) {
    ClassifyState& state = state_;
    PartitionStats& stats = stats_;
    const std::size_t count = super.count;
    // Hits kept from a larger super-batch would count against this one's budget.
    for (std::size_t b = count; b < state.hits.size(); ++b) state.hits[b] = BatchHits{};

    // Parse and sketch every batch once.
    host::Stopwatch clock;
    host::parallel_for(count, threads_, [&](std::size_t b) {
      SketchedBatch& sketched = state.sketches[b];
      const bool parsed = parse_batch(options_, layout_, *super.batches[b], state.parsed[b]);
      sketch_reads(classifier_,
                   parsed ? std::span<const ReadView>(state.parsed[b].reads)
                          : std::span<const ReadView>(),
                   sketched);
      if (!parsed) return;
      state.hits[b].reset(sketched.features.size());
    });
    parse_seconds_ += clock.lap();

    // Batches [first, end) walk the parts: each part in turn, the hits of
    // every batch growing part by part. Where what is held would pass the
    // budget (the estimate fell short), the last batches, up to half of the
    // walk's, are put off, their hits freed, to a walk of their own after
    // these are decided: so the hits stay within it unless the estimate was
    // short by half, and a super-batch takes a few walks at most (one more
    // halves the rest). Every other walk goes backwards, so the part left in
    // memory by one is the first the next needs.
    std::uint64_t peak = 0;  // the most held (resident)
    std::uint64_t hits_in_use = 0;  // of the walks done, for the estimate
    std::uint64_t walks = 0;
    double collected = 0, decided = 0;
    for (std::size_t first = 0, end = count; first < count; first = end, end = count) {
      if (walks++ > 0)
        for (std::size_t b = first; b < count; ++b)
          state.hits[b].reset(state.sketches[b].features.size());
      const double loads_before = stats.load_seconds;
      walk_parts(super, state, first, end, peak, stats);
      collected += clock.lap() - (stats.load_seconds - loads_before);
      decide(super, state, first, end);
      peak = std::max(peak, held_bytes(super, state, Held::capacity));
      hits_in_use += hit_bytes(state, first, end, Held::size);
      if (end < count)  // the hits of the batches decided are freed for the rest
        for (std::size_t b = first; b < end; ++b) state.hits[b] = BatchHits{};
      decided += clock.lap();
    }
    ++stats.super_batches;
    stats.walks += walks;
    stats.collect_seconds += collected;
    stats.decide_seconds += decided;
    classify_seconds_ += collected + decided;
    stats.largest_super_batch_bytes = std::max(stats.largest_super_batch_bytes, peak);
    // Its hits of every walk, as if it had taken one.
    measure(super, held_bytes(super, state, Held::size) - hit_bytes(state, 0, count, Held::size) +
                       hits_in_use);
  }

  // The next super-batches' estimate: the most any needed (`needed` bytes
  // for this one) per byte of text.
  void measure(const BatchGroup& super, std::uint64_t needed) {
    if (super.text_bytes == 0) return;
    const double measured = double(needed) / double(super.text_bytes);
    bytes_per_text_byte_ = super_batches_measured_++ == 0
                               ? measured
                               : std::max(measured, bytes_per_text_byte_.load());
  }

  // Every part in turn, given to the collector (PartCache: from memory or
  // the file), the walk's next part prefetched, then look(). Every other
  // walk goes backwards, so the part left in memory by one is the first the
  // next needs.
  template <class Look>
  void walk(ClassifyState& state, PartitionStats& stats, Look look) {
    const bool backwards = state.walks++ % 2 == 1;
    for (std::size_t i = 0; i < parts_.size(); ++i) {
      const std::size_t p = backwards ? parts_.size() - 1 - i : i;
      host::Stopwatch clock;
      const db::IndexPart& part = parts_[p];
      const PartUse used = naming_out_of_memory(
          "reading part " + std::to_string(p + 1) + "/" + std::to_string(parts_.size()) +
              " of database '" + db_.path().string() + "' (" +
              format_bytes(db::index_bytes(part.features(), part.locations())) + ")",
          "give --max-memory (the memory the query may use) or more --partitions",
          [&] { return state.parts->use(p, collector_); });
      if (used.switched) {
        ++stats.part_loads;
        stats.part_reads += used.from_file ? 1 : 0;
        stats.load_seconds += clock.lap();
      }
      // The walk's next part may come in while this one is looked in (the
      // next walk starts with this walk's last part: nothing to bring).
      if (i + 1 < parts_.size()) state.parts->prefetch(backwards ? p - 1 : p + 1, collector_);
      look();
    }
    stats.kept_parts = std::max(stats.kept_parts, state.parts->kept_parts());
    stats.kept_bytes = std::max(stats.kept_bytes, state.parts->kept_bytes());
  }

  // Batches [first, end) through every part; `end` is lowered where what is
  // held passes the budget (see classify()).
  void walk_parts(BatchGroup& super, ClassifyState& state, std::size_t first, std::size_t& end,
                  std::uint64_t& peak, PartitionStats& stats) {
    const std::uint64_t others =
        held_bytes(super, state, Held::capacity) - hit_bytes(state, first, end, Held::capacity);
    const std::size_t least = first + (end - first + 1) / 2;  // batches kept at least
    walk(state, stats, [&] {
      collector_.collect(std::span(state.sketches).subspan(first, end - first),
                         std::span(state.hits).subspan(first, end - first));
      std::uint64_t held = others + hit_bytes(state, first, end, Held::capacity);
      while (held > hit_memory_ && end > least) {
        held -= hit_bytes(state.hits[--end], Held::capacity);
        state.hits[end] = BatchHits{};
      }
      peak = std::max(peak, held);
    });
    std::uint64_t hits = 0;
    for (std::size_t b = first; b < end; ++b)
      hits += state.hits[b].locations.size() * sizeof(sketch::Location);
    stats.largest_hits_bytes = std::max(stats.largest_hits_bytes, hits);
  }

  // Every read's hits over all parts, decided as Classifier::classify does,
  // and the batches [first, end) formatted.
  void decide(BatchGroup& super, ClassifyState& state, std::size_t first, std::size_t end) {
    host::parallel_for(end - first, threads_, [&](std::size_t i, unsigned w) {
      const std::size_t b = first + i;
      ParsedBatch& parsed = state.parsed[b];
      decide_reads(classifier_, state.sketches[b], state.hits[b], parsed.results,
                   state.scratch[w], state.lists[w]);
      writer_.format(*super.batches[b], parsed, layout_ != io::ReadLayout::single);
    });
  }

  const db::PartialDatabase& db_;
  const std::vector<db::IndexPart>& parts_;
  const QueryOptions& options_;
  io::ReadLayout layout_;
  const QueryWriter& writer_;
  std::uint64_t hit_memory_;
  const Classifier& classifier_;  // on the metadata: sketches and decides, looks nothing up
  unsigned threads_;
  std::unique_ptr<PartHitCollector> own_collector_;
  PartHitCollector& collector_;
  PartitionStats& stats_;
  ClassifyState state_;
  double parse_seconds_ = 0, classify_seconds_ = 0;
  std::uint64_t super_batches_cut_ = 0;       // the source's
  std::uint64_t super_batches_measured_ = 0;  // the classifying step's
  std::atomic<double> bytes_per_text_byte_{0};
};

// The streamed engine: the database's metadata in memory, its index read
// part by part for every super-batch.
class PartitionedEngine final : public PartitionedQueryEngine {
 public:
  PartitionedEngine(const db::PartialDatabase& db, PartitionPlan plan,
                    const ClassifierOptions& options, PartHitCollector* collector)
      : db_(db), plan_(std::move(plan)), classifier_(db.metadata(), options), collector_(collector) {
    if (plan_.parts.empty())
      throw std::invalid_argument("a partitioned query needs at least one part");
    if (plan_.hit_memory == 0) throw std::invalid_argument("a partitioned query needs hit memory");
  }
  std::unique_ptr<GroupClassifier> start_groups(const GroupContext& context) const override {
    return std::make_unique<PartitionedGroups>(db_, plan_, classifier_, collector_, stats_,
                                               context);
  }
  PartitionStats stats() const override { return stats_; }
  const PartitionPlan& plan() const override { return plan_; }

 private:
  const db::PartialDatabase& db_;
  PartitionPlan plan_;
  Classifier classifier_;
  PartHitCollector* collector_;
  mutable PartitionStats stats_;  // summed over the runs (one at a time)
};

// A budget of the reads in flight and what malloc keeps besides: the reads'
// buffers grow, are freed and are made again, and the memory malloc keeps for
// reuse (fragments of the arenas) was up to half of a super-batch on refs138.
std::uint64_t with_allocator_slack(std::uint64_t reads) { return reads + reads / 2; }

// What max_memory must hold besides a part and the reads in flight.
std::uint64_t fixed_bytes(const MemoryInUse& in_use) {
  return in_use.resident + std::uint64_t(std::max(1u, in_use.threads)) * thread_memory +
         reader_memory;
}

std::uint64_t whole_index_bytes(const db::PartialDatabase& db) {
  return db::index_bytes(db.feature_count(), db.location_count());
}

// The least a part needs: the longest location list with its lookup, at
// least min_part_bytes, at most the whole index.
std::uint64_t least_part_bytes(const db::PartialDatabase& db) {
  const std::uint64_t longest =
      db.feature_count() == 0 ? 0 : db::index_bytes(1, db.longest_list());
  return std::min(whole_index_bytes(db), std::max(longest, min_part_bytes));
}

// What max_memory must hold at least: what is in use, the least part and
// the reads' budget (--hit-memory, else the least) with its slack.
std::uint64_t needed_bytes(const db::PartialDatabase& db, const PartitionOptions& options,
                           const MemoryInUse& in_use) {
  return fixed_bytes(in_use) + least_part_bytes(db) +
         with_allocator_slack(options.hit_memory != 0 ? options.hit_memory : min_hit_memory);
}

// The least --max-memory to suggest for `needed`: the memory in use is
// measured, and moves by a few pages from run to run, so 4 MiB more,
// rounded up to a MiB.
std::uint64_t suggested(std::uint64_t needed) {
  constexpr std::uint64_t mib = std::uint64_t(1) << 20;
  return (needed + 4 * mib + mib - 1) / mib * mib;
}

// The share of max_memory a part gets: with --hit-memory what it leaves
// (with its slack), else half of what is left (at least the least part,
// leaving the reads at least min_hit_memory and its slack), no more than
// the whole index. Throws naming the least --max-memory when max_memory
// cannot hold the query.
std::uint64_t part_share(const db::PartialDatabase& db, const PartitionOptions& options,
                         const MemoryInUse& in_use) {
  const std::uint64_t fixed = fixed_bytes(in_use), part = least_part_bytes(db);
  const std::uint64_t needed = needed_bytes(db, options, in_use);
  if (options.max_memory < needed)
    throw std::runtime_error(
        "--max-memory " + std::to_string(options.max_memory) + " is too little for a query of "
        "database '" + db.path().string() + "': it needs " + format_bytes(fixed) +
        " for the program, the database's targets and taxonomy and " +
        std::to_string(std::max(1u, in_use.threads)) + " threads, " + format_bytes(part) +
        " for a part of its index and " + format_bytes(needed - fixed - part) +
        " for the reads in flight" + (options.hit_memory != 0 ? " (--hit-memory)" : "") +
        " and what malloc keeps of them" +
        "; allow at least --max-memory " + std::to_string(suggested(needed)) +
        (options.hit_memory != 0 ? ", or lower --hit-memory" : ""));
  const std::uint64_t left = options.max_memory - fixed;
  const std::uint64_t share =
      options.hit_memory != 0
          ? left - with_allocator_slack(options.hit_memory)
          : std::clamp(left / 2, part, left - with_allocator_slack(min_hit_memory));
  return std::min(share, whole_index_bytes(db));
}

}  // namespace

std::uint64_t least_max_memory(const db::PartialDatabase& db, const MemoryInUse& in_use) {
  return suggested(needed_bytes(db, {}, in_use));
}

PartitionPlan plan_partitions(const db::PartialDatabase& db, const PartitionOptions& options,
                              const MemoryInUse& in_use) {
  PartitionPlan plan;
  const std::uint64_t share =
      options.max_memory != 0 ? part_share(db, options, in_use) : options.part_bytes;
  if (options.partitions != 0) {
    // More parts than min_part_bytes allows are no use (the caller tells).
    const std::uint64_t useful = std::max<std::uint64_t>(1, whole_index_bytes(db) / min_part_bytes);
    plan.parts = db.plan_parts(std::size_t(std::min<std::uint64_t>(options.partitions, useful)));
  } else if (share != 0) {
    plan.parts = db.plan_by_bytes(share);
  } else {
    plan.parts = db.plan_parts(1);
  }
  std::uint64_t largest = 0;
  for (const db::IndexPart& part : plan.parts)
    largest = std::max(largest, db::index_bytes(part.features(), part.locations()));
  if (options.partitions != 0 && share != 0 && largest > share)
    throw std::runtime_error(
        "--partitions " + std::to_string(options.partitions) + ": a part of database '" +
        db.path().string() + "' needs " + std::to_string(largest) + " bytes, more than " +
        (options.max_memory != 0 ? "--max-memory " + std::to_string(options.max_memory) +
                                       " leaves for it (" + std::to_string(share) + ")"
                                 : std::to_string(share)) +
        "; give more partitions, or --max-memory alone");
  // The reads in flight: --hit-memory, else two thirds of what the largest
  // part leaves of --max-memory (with_allocator_slack), else the default.
  plan.hit_memory = options.hit_memory != 0 ? options.hit_memory
                    : options.max_memory != 0
                        ? (options.max_memory - fixed_bytes(in_use) - largest) * 2 / 3
                        : default_hit_memory();
  plan.keep_bytes =
      options.max_memory != 0 ? 0 : default_keep_bytes(with_allocator_slack(plan.hit_memory));
  return plan;
}

void add(PartitionStats& sum, const PartitionStats& more) {
  sum.parts = std::max(sum.parts, more.parts);
  sum.largest_part_bytes = std::max(sum.largest_part_bytes, more.largest_part_bytes);
  sum.super_batches += more.super_batches;
  sum.walks += more.walks;
  sum.part_loads += more.part_loads;
  sum.part_reads += more.part_reads;
  sum.kept_parts = std::max(sum.kept_parts, more.kept_parts);
  sum.kept_bytes = std::max(sum.kept_bytes, more.kept_bytes);
  sum.largest_hits_bytes = std::max(sum.largest_hits_bytes, more.largest_hits_bytes);
  sum.largest_super_batch_bytes =
      std::max(sum.largest_super_batch_bytes, more.largest_super_batch_bytes);
  sum.load_seconds += more.load_seconds;
  sum.collect_seconds += more.collect_seconds;
  sum.decide_seconds += more.decide_seconds;
}

std::unique_ptr<PartitionedQueryEngine> make_partitioned_engine(const db::PartialDatabase& db,
                                                                PartitionPlan plan,
                                                                const ClassifierOptions& options,
                                                                PartHitCollector* collector) {
  return std::make_unique<PartitionedEngine>(db, std::move(plan), options, collector);
}

QuerySummary run_partitioned_query(const db::PartialDatabase& db, const PartitionPlan& plan,
                                   const QueryOptions& options, QueryCounters* counters,
                                   PartHitCollector* collector, PartitionStats* stats) {
  const auto engine = make_partitioned_engine(db, plan, engine_options(options), collector);
  const QuerySummary summary = run_query(db.metadata(), options, engine.get(), counters);
  if (stats) add(*stats, engine->stats());
  return summary;
}

}  // namespace metawarp::pipeline
