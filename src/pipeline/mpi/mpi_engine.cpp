// The MPI engine (pipeline/query/mpi_engine.hpp): the simplest correct
// exchange first. Rank 0 holds one lock over every MPI call, so its worker
// threads take turns (MPI_THREAD_SERIALIZED): a turn broadcasts one batch's
// features, every rank collects its part's hits (on the CPU, or on its GPU),
// and rank 0 gathers them.
#include "pipeline/query/mpi_engine.hpp"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "db/partial_load.hpp"
#include "metawarp/host/clock.hpp"
#include "pipeline/progress.hpp"
#include "pipeline/query/gpu_query.hpp"
#include "pipeline/query/part_hits.hpp"

namespace metawarp::pipeline {

namespace {

static_assert(sizeof(sketch::feature_t) == sizeof(std::uint32_t));
static_assert(sizeof(sketch::Location) == sizeof(std::uint64_t));

// MPI for the process. Finalized at exit only once the ranks agreed on their
// loads: a rank that ends before (an error before the collective) exits
// without it, and mpirun ends the others instead of leaving them waiting.
class MpiSession {
 public:
  MpiSession() {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
    if (provided < MPI_THREAD_SERIALIZED)
      throw std::runtime_error("--mpi: the MPI library does not allow calls from several threads");
    MPI_Comm_rank(MPI_COMM_WORLD, &place_.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &place_.ranks);
    // The ranks sharing this host's memory (and GPUs).
    MPI_Comm host;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, place_.rank, MPI_INFO_NULL, &host);
    MPI_Comm_rank(host, &place_.local_rank);
    MPI_Comm_free(&host);
  }
  ~MpiSession() {
    if (agreed_) MPI_Finalize();
  }
  MpiPlace place() const { return place_; }
  void agreed() { agreed_ = true; }

 private:
  MpiPlace place_;
  bool agreed_ = false;
};

MpiSession& session() {
  static MpiSession s;
  return s;
}

// The message rank 0 broadcasts before each batch: its features, or `done`.
constexpr std::uint64_t done = UINT64_MAX;

// A count for MPI: within int, as MpiEngine::exchange checks before it sends.
int as_count(std::uint64_t n) { return int(n); }

class MpiEngine;

class MpiClassifier final : public BatchClassifier {
 public:
  MpiClassifier(const MpiEngine& engine, const Classifier& classifier)
      : engine_(engine), classifier_(classifier) {}
  void classify(std::span<const ReadView> reads, std::span<ReadResult> results) override;

 private:
  const MpiEngine& engine_;
  const Classifier& classifier_;
  SketchedBatch sketched_;
  BatchHits hits_;
  ClassifierScratch scratch_;
  std::vector<std::span<const sketch::Location>> lists_;
};

class MpiEngine final : public MpiQueryEngine {
 public:
  MpiEngine(const std::string& path, const ClassifierOptions& options, unsigned threads,
            const ShardLayout* gpus)
      : place_(mpi_place()) {
    std::string error;
    try {
      load(path, options, threads, gpus);
    } catch (const std::exception& e) {
      error = e.what();
    }
    agree_on_loads(error);
  }

  ~MpiEngine() override {
    if (place_.rank != 0) return;
    std::lock_guard lock(mutex_);
    std::uint64_t n = done;
    MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  }

  const db::Database& metadata() const override { return db_->metadata(); }

  std::unique_ptr<BatchClassifier> make_classifier() const override {
    return std::make_unique<MpiClassifier>(*this, *classifier_);
  }

  MpiStats stats() const override {
    std::scoped_lock lock(mutex_, decided_mutex_);
    MpiStats s = stats_;
    s.decide_seconds = decide_seconds_;
    if (gpu_collector_) s.gpu_stats = gpu_collector_->stats();
    return s;
  }

  // Rank 0's workers: the time one took to decide a batch's reads (not under
  // mutex_: a worker decides while another exchanges).
  void decided(double seconds) const {
    std::lock_guard lock(decided_mutex_);
    decide_seconds_ += seconds;
  }

  void serve() override {
    SketchedBatch batch;
    batch.shapes.resize(1);  // all the features as one read: only the part's are looked up
    BatchHits hits;
    for (;;) {
      std::uint64_t n = 0;
      MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
      if (n == done) return;
      batch.features.resize(n);
      MPI_Bcast(batch.features.data(), as_count(n), MPI_UINT32_T, 0, MPI_COMM_WORLD);
      batch.offsets.assign({0, n});
      collect(batch, hits);
      send_hits(hits, n);
    }
  }

  // Rank 0, one worker at a time: `hits` made the hits of `batch` over
  // every rank's part.
  void exchange(const SketchedBatch& batch, BatchHits& hits) const {
    std::uint64_t n = batch.features.size();
    // Every message of the exchange within MPI's int counts, checked before
    // the first: a batch left half exchanged would leave the ranks in
    // different collectives. A feature's list holds at most longest_list().
    if (n * std::max<std::uint64_t>(1, db_->longest_list()) > INT_MAX ||
        n * std::uint64_t(place_.ranks) > INT_MAX)
      throw std::runtime_error("--mpi: a batch of " + std::to_string(batch.reads()) +
                               " reads has more features or hits than one MPI message holds: "
                               "lower --batch-size");
    std::lock_guard lock(mutex_);
    host::Stopwatch clock;
    MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    MPI_Bcast(const_cast<sketch::feature_t*>(batch.features.data()), as_count(n), MPI_UINT32_T,
              0, MPI_COMM_WORLD);
    stats_.exchange_seconds += clock.lap();
    collect(batch, own_);
    stats_.collect_seconds += clock.lap();
    // Each rank's list sizes (one per feature) and its lists, in feature order.
    std::vector<std::uint64_t> counts(place_.ranks);
    std::uint64_t count = own_.locations.size();
    MPI_Gather(&count, 1, MPI_UINT64_T, counts.data(), 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    std::vector<int> size_counts(place_.ranks, as_count(n)), size_displs(place_.ranks);
    std::vector<int> location_counts(place_.ranks), location_displs(place_.ranks);
    std::uint64_t total = 0;
    for (int r = 0; r < place_.ranks; ++r) {
      size_displs[r] = as_count(std::uint64_t(r) * n);
      location_counts[r] = as_count(counts[r]);
      location_displs[r] = as_count(total);
      total += counts[r];
    }
    sizes_.resize(n * place_.ranks);
    MPI_Gatherv(own_.list_sizes.data(), as_count(n), MPI_UINT32_T, sizes_.data(),
                size_counts.data(), size_displs.data(), MPI_UINT32_T, 0, MPI_COMM_WORLD);
    hits.locations.resize(total);
    MPI_Gatherv(own_.locations.data(), location_counts[0], MPI_UINT64_T, hits.locations.data(),
                location_counts.data(), location_displs.data(), MPI_UINT64_T, 0,
                MPI_COMM_WORLD);
    stats_.exchange_seconds += clock.lap();
    stats_.batches += 1;
    stats_.features += n;
    stats_.hits += total;
    // Each feature's whole list lies in the part that holds it: rank r's
    // lists follow one another in feature order from its displacement.
    hits.list_start.assign(n, 0);
    hits.list_sizes.assign(n, 0);
    for (int r = 0; r < place_.ranks; ++r) {
      std::uint64_t at = std::uint64_t(location_displs[r]);
      for (std::uint64_t i = 0; i < n; ++i) {
        const std::uint32_t size = sizes_[std::uint64_t(r) * n + i];
        if (size == 0) continue;
        hits.list_start[i] = at;
        hits.list_sizes[i] = size;
        at += size;
      }
    }
  }

 private:
  void load(const std::string& path, const ClassifierOptions& options, unsigned threads,
            const ShardLayout* gpus) {
    const char* fail = std::getenv("METAWARP_TEST_MPI_FAIL_RANK");  // a test hook
    if (fail && std::to_string(place_.rank) == fail)
      throw std::runtime_error("database '" + path +
                               "': METAWARP_TEST_MPI_FAIL_RANK: this rank's load fails (a test)");
    db_.emplace(path, threads);
    const std::vector<db::IndexPart> parts = db_->plan_parts(std::size_t(place_.ranks));
    // A database of fewer features than ranks: the last ranks hold nothing.
    if (std::size_t(place_.rank) < parts.size()) {
      part_ = parts[std::size_t(place_.rank)];
      loaded_.emplace(db_->load_part(*part_, threads));
      if (gpus) {
        use_gpu(mpi_rank_layout(*gpus, place_.local_rank));
      } else {
        collector_ = make_cpu_hit_collector(1);
        collector_->use_part(*loaded_, *part_);
      }
    }
    if (place_.rank == 0) classifier_.emplace(db_->metadata(), options);
  }

  // The part uploaded to `layout`'s GPU, its hits collected there: its
  // errors (no usable GPU, a part too large for it) name the GPU and the
  // host, rank 0 adds the rank.
  void use_gpu(const ShardLayout& layout) {
    const int device = layout.devices.front();
    try {
      auto collector = make_gpu_hit_collector(db_->metadata().targets, layout);
      collector->use_part(*loaded_, *part_);
      gpu_collector_ = collector.get();
      collector_ = std::move(collector);
    } catch (const std::exception& e) {  // also a device that does not exist
      char host[MPI_MAX_PROCESSOR_NAME] = "?";
      int length = 0;
      MPI_Get_processor_name(host, &length);
      const std::uint64_t bytes =
          gpu_shard_bytes(part_->features(), part_->locations()) +
          gpu_per_device_bytes(db_->metadata().targets.size(), layout.shards());
      throw std::runtime_error("its part (" + std::to_string(part_->features()) + " features, " +
                               std::to_string(part_->locations()) + " locations, about " +
                               format_bytes(bytes) + " on a GPU) on GPU " +
                               std::to_string(device) + " of host " + host + ": " + e.what());
    }
    if (place_.rank == 0) stats_.gpu = layout;
  }

  // One collective: every rank learns whether all loaded. Rank 0 receives the
  // first failed rank's message.
  void agree_on_loads(const std::string& error) {
    const int mine = error.empty() ? place_.ranks : place_.rank;
    int first_failed = 0;
    MPI_Allreduce(&mine, &first_failed, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    session().agreed();
    if (first_failed == place_.ranks) return;
    std::string message = error;
    if (first_failed != 0) {
      if (place_.rank == first_failed) {
        MPI_Send(error.data(), as_count(error.size()), MPI_CHAR, 0, 0, MPI_COMM_WORLD);
      } else if (place_.rank == 0) {
        MPI_Status status;
        MPI_Probe(first_failed, 0, MPI_COMM_WORLD, &status);
        int length = 0;
        MPI_Get_count(&status, MPI_CHAR, &length);
        message.assign(std::size_t(length), '\0');
        MPI_Recv(message.data(), length, MPI_CHAR, first_failed, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
      }
    }
    if (place_.rank != 0)
      throw MpiFailedElsewhere("rank " + std::to_string(first_failed) + " failed to load its part");
    throw std::runtime_error("--mpi: rank " + std::to_string(first_failed) + " of " +
                             std::to_string(place_.ranks) +
                             " could not load its part of the database: " + message);
  }

  void collect(const SketchedBatch& batch, BatchHits& hits) const {
    hits.reset(batch.features.size());
    if (!loaded_) return;
    collector_->collect(std::span(&batch, 1), std::span(&hits, 1));
  }

  void send_hits(const BatchHits& hits, std::uint64_t n) {
    std::uint64_t count = hits.locations.size();
    MPI_Gather(&count, 1, MPI_UINT64_T, nullptr, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    MPI_Gatherv(hits.list_sizes.data(), as_count(n), MPI_UINT32_T, nullptr, nullptr, nullptr,
                MPI_UINT32_T, 0, MPI_COMM_WORLD);
    MPI_Gatherv(hits.locations.data(), as_count(count), MPI_UINT64_T, nullptr, nullptr, nullptr,
                MPI_UINT64_T, 0, MPI_COMM_WORLD);
  }

  MpiPlace place_;
  std::optional<db::PartialDatabase> db_;
  std::optional<db::IndexPart> part_;
  std::optional<db::FeatureIndex> loaded_;
  std::optional<Classifier> classifier_;
  std::unique_ptr<PartHitCollector> collector_;  // with a part
  const GpuHitCollector* gpu_collector_ = nullptr;  // collector_, on a GPU
  // Rank 0: one MPI exchange at a time, and what it holds meanwhile.
  mutable std::mutex mutex_;
  mutable MpiStats stats_;  // but its decide_seconds:
  mutable std::mutex decided_mutex_;
  mutable double decide_seconds_ = 0;
  mutable BatchHits own_;  // rank 0's own part's hits of the batch
  mutable std::vector<std::uint32_t> sizes_;  // every rank's list sizes, rank by rank
};

void MpiClassifier::classify(std::span<const ReadView> reads, std::span<ReadResult> results) {
  sketch_reads(classifier_, reads, sketched_);
  engine_.exchange(sketched_, hits_);
  host::Stopwatch clock;
  decide_reads(classifier_, sketched_, hits_, results, scratch_, lists_);
  engine_.decided(clock.lap());
}

}  // namespace

bool mpi_compiled_in() { return true; }

void mpi_handoff() {}  // this is metawarp-mpi

MpiPlace mpi_place() { return session().place(); }

std::unique_ptr<MpiQueryEngine> make_mpi_engine(const std::string& path,
                                                const ClassifierOptions& options,
                                                unsigned threads,
                                                const ShardLayout* gpus) {
  return std::make_unique<MpiEngine>(path, options, threads, gpus);
}

}  // namespace metawarp::pipeline
