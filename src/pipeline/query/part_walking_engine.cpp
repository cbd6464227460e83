#include "pipeline/query/part_walking_engine.hpp"

#include <algorithm>
#include <vector>

#include "metawarp/host/parallel_for.hpp"
#include "pipeline/query/part_cache.hpp"
#include "pipeline/query/part_hits.hpp"

namespace metawarp::pipeline {

namespace {

class PartWalkingClassifier final : public BatchClassifier {
 public:
  PartWalkingClassifier(const db::PartialDatabase& db, const PartitionPlan& plan,
                        const Classifier& classifier, unsigned threads)
      : plan_(plan),
        classifier_(classifier),
        threads_(std::max(1u, threads)),
        collector_(make_cpu_hit_collector(threads_)),
        parts_(db, plan.parts, plan.keep_bytes, threads_),
        sketches_(threads_),
        hits_(threads_),
        scratch_(threads_),
        lists_(threads_) {}

  void classify(std::span<const ReadView> reads, std::span<ReadResult> results) override {
    // The reads in one chunk per thread, each sketched once.
    const std::size_t chunk = (reads.size() + threads_ - 1) / threads_;
    const std::size_t chunks = chunk == 0 ? 0 : (reads.size() + chunk - 1) / chunk;
    host::parallel_for(chunks, threads_, [&](std::size_t c) {
      const std::size_t from = c * chunk, to = std::min(reads.size(), (c + 1) * chunk);
      sketch_reads(classifier_, reads.subspan(from, to - from), sketches_[c]);
      hits_[c].reset(sketches_[c].features.size());
    });
    // Every part, every other call backwards: the part left in memory by
    // one call is the first the next needs.
    const std::size_t parts = plan_.parts.size();
    const bool backwards = walks_++ % 2 == 1;
    for (std::size_t i = 0; i < parts; ++i) {
      const std::size_t p = backwards ? parts - 1 - i : i;
      parts_.use(p, *collector_);
      collector_->collect(std::span<const SketchedBatch>(sketches_).first(chunks),
                          std::span(hits_).first(chunks));
    }
    host::parallel_for(chunks, threads_, [&](std::size_t c, unsigned w) {
      decide_reads(classifier_, sketches_[c], hits_[c],
                   results.subspan(c * chunk, sketches_[c].reads()), scratch_[w], lists_[w]);
    });
  }

 private:
  const PartitionPlan& plan_;
  const Classifier& classifier_;
  unsigned threads_;
  std::unique_ptr<PartHitCollector> collector_;
  PartCache parts_;  // the parts read, those kept
  std::vector<SketchedBatch> sketches_;  // per chunk
  std::vector<BatchHits> hits_;          // per chunk, over all parts
  std::vector<ClassifierScratch> scratch_;  // per thread
  std::vector<std::vector<std::span<const sketch::Location>>> lists_;  // per thread
  std::uint64_t walks_ = 0;
};

class PartWalkingEngine final : public QueryEngine {
 public:
  PartWalkingEngine(const db::PartialDatabase& db, PartitionPlan plan,
                    const ClassifierOptions& options, unsigned threads)
      : db_(db), plan_(std::move(plan)), classifier_(db.metadata(), options), threads_(threads) {}
  std::unique_ptr<BatchClassifier> make_classifier() const override {
    return std::make_unique<PartWalkingClassifier>(db_, plan_, classifier_, threads_);
  }

 private:
  const db::PartialDatabase& db_;
  PartitionPlan plan_;
  Classifier classifier_;
  unsigned threads_;
};

}  // namespace

std::unique_ptr<QueryEngine> make_part_walking_engine(const db::PartialDatabase& db,
                                                      PartitionPlan plan,
                                                      const ClassifierOptions& options,
                                                      unsigned threads) {
  return std::make_unique<PartWalkingEngine>(db, std::move(plan), options, threads);
}

std::size_t reads_per_walk(const db::PartialDatabase& db, const PartitionPlan& plan,
                           std::uint32_t read_length, bool paired) {
  const double bytes = bytes_per_text_byte(db, paired) * double(std::max(1u, read_length));
  return std::max<std::size_t>(1, std::size_t(double(plan.hit_memory) / bytes));
}

}  // namespace metawarp::pipeline
