// The MPI engine (pipeline/query/mpi_engine.hpp). On the host's path rank
// 0's worker threads take turns (one lock over every MPI call): a turn
// broadcasts one batch's features, every rank collects its part's hits (on
// the CPU, or on its GPU), and rank 0 gathers them. On the GPUs' path rank 0
// runs groups of reads: a group's reads are broadcast, and every other rank
// sends back the lists its part keeps. Where MPI allows calls from several
// threads, the steps overlap: rank 0 sends the next group while it decides
// one, and the other ranks receive the next group and send the previous
// group's lists while they look one up.
#include "pipeline/query/mpi_engine.hpp"

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "db/partial_load.hpp"
#include "metawarp/host/background_task.hpp"
#include "metawarp/host/clock.hpp"
#include "metawarp/host/parallel_for.hpp"
#include "pipeline/progress.hpp"
#include "pipeline/query/gpu_query.hpp"
#include "pipeline/query/part_hits.hpp"
#include "pipeline/query/query_batch.hpp"
#include "pipeline/query/reads_message.hpp"

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
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_SERIALIZED)
      throw std::runtime_error("--mpi: the MPI library does not allow calls from several threads");
    multiple_ = provided >= MPI_THREAD_MULTIPLE;
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
  // Whether two threads may call MPI at once (the GPUs' path looks ahead).
  bool multiple() const { return multiple_; }

 private:
  MpiPlace place_;
  bool agreed_ = false;
  bool multiple_ = false;
};

MpiSession& session() {
  static MpiSession s;
  return s;
}

// What rank 0 broadcasts before each exchange: a kind and its sizes.
enum class Kind : std::uint64_t {
  done = 0,
  features = 1,  // size[0] features (the host's path)
  reads = 2,     // size[0] batches, [1] reads, [2] packed bytes, [3] invalid bases (the GPUs')
};
struct Header {
  Kind kind = Kind::done;
  std::uint64_t size[4] = {0, 0, 0, 0};
};

void broadcast(Header& header) {
  MPI_Bcast(&header, sizeof(Header), MPI_BYTE, 0, MPI_COMM_WORLD);
}

// A count for MPI: within int, as MpiEngine::exchange checks before it sends.
int as_count(std::uint64_t n) { return int(n); }

// MPI's counts are ints: the GPUs' path sends its arrays in pieces of 1 GiB.
constexpr std::uint64_t piece_bytes = std::uint64_t(1) << 30;
constexpr int lists_tag = 1;

template <class T>
void send_array(const T* data, std::uint64_t count, int to) {
  const char* bytes = reinterpret_cast<const char*>(data);
  const std::uint64_t n = count * sizeof(T);
  for (std::uint64_t at = 0; at < n; at += piece_bytes)
    MPI_Send(bytes + at, as_count(std::min(piece_bytes, n - at)), MPI_BYTE, to, lists_tag,
             MPI_COMM_WORLD);
}

// Waits for `request`, or gives up once `failing` is set (another thread of
// rank 0 failed: the job is about to end, and what this one waits for may
// never come).
void wait_unless(MPI_Request& request, const std::atomic<bool>& failing) {
  for (int done = 0;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    if (failing.load(std::memory_order_relaxed))
      throw std::runtime_error("--mpi: stopped: another step of the exchange failed");
    std::this_thread::yield();
  }
}

// Nonblocking on every rank: a nonblocking collective matches no blocking one.
template <class T>
void broadcast_array(T* data, std::uint64_t count, const std::atomic<bool>& failing) {
  char* bytes = reinterpret_cast<char*>(data);
  const std::uint64_t n = count * sizeof(T);
  for (std::uint64_t at = 0; at < n; at += piece_bytes) {
    MPI_Request request;
    MPI_Ibcast(bytes + at, as_count(std::min(piece_bytes, n - at)), MPI_BYTE, 0, MPI_COMM_WORLD,
               &request);
    wait_unless(request, failing);
  }
}
template <class T>
void receive_array(T* data, std::uint64_t count, int from, const std::atomic<bool>& failing) {
  char* bytes = reinterpret_cast<char*>(data);
  const std::uint64_t n = count * sizeof(T);
  for (std::uint64_t at = 0; at < n; at += piece_bytes) {
    MPI_Request request;
    MPI_Irecv(bytes + at, as_count(std::min(piece_bytes, n - at)), MPI_BYTE, from, lists_tag,
              MPI_COMM_WORLD, &request);
    wait_unless(request, failing);
  }
}

// A group's reads are cut in batches of the CPU's size, as many as about
// this much text of mates 1 (or single reads): some 0.2 M pairs of 150
// bases, which take about 0.3 GiB of rank 0's GPU with their kept lists.
// Small groups keep the ranks' steps in step: 64 MiB groups ran 5.1-5.5 M
// pairs/s where 256 MiB ran 4.2-4.7 (2 ranks, 2 x H200, docs/benchmarks.md).
constexpr std::uint64_t group_text_bytes = std::uint64_t(64) << 20;
constexpr std::size_t group_batch_bytes = std::size_t(4) << 20;

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
      : place_(mpi_place()), threads_(std::max(1u, threads)) {
    std::string error;
    try {
      load(path, options, threads, gpus);
    } catch (const std::exception& e) {
      error = e.what();
    }
    agree_on_loads(error);
    agree_on_gpus(gpus != nullptr, options);
  }

  // Rank 0 tells the other ranks it is done; after a failed exchange they
  // may be anywhere in it, so the job ends there (MPI_Abort), the query's
  // outputs already removed and the error said here.
  ~MpiEngine() override {
    if (place_.rank != 0) return;
    if (failing_) abort_job(failed_);
    std::lock_guard lock(mutex_);
    Header header;  // done
    broadcast(header);
  }

  const db::Database& metadata() const override { return db_->metadata(); }

  std::unique_ptr<BatchClassifier> make_classifier() const override {
    return std::make_unique<MpiClassifier>(*this, *classifier_);
  }

  MpiStats stats() const override {
    std::scoped_lock lock(mutex_, decided_mutex_, stats_mutex_);
    MpiStats s = stats_;
    s.decide_seconds += decide_seconds_;
    s.looks_ahead = on_gpus_ && looks_ahead();
    if (gpu_collector_) s.gpu_stats = gpu_collector_->stats();
    return s;
  }

  // Rank 0's workers: the time one took to decide a batch's reads (not under
  // mutex_: a worker decides while another exchanges).
  void decided(double seconds) const {
    std::lock_guard lock(decided_mutex_);
    decide_seconds_ += seconds;
  }

  // A failure on a rank other than 0 (its GPU, its memory) ends the job:
  // rank 0 waits for its answer.
  void serve(bool verbose) override {
    try {
      answer();
    } catch (const std::exception& e) {
      abort_job("--mpi: rank " + std::to_string(place_.rank) + ": " + e.what());
    }
    if (verbose && served_.groups > 0)
      std::fprintf(stderr,
                   "query: MPI rank %d: %llu groups of reads%s: received %.2f s (waiting for "
                   "rank 0 included), unpacked %.2f s, sent to its GPU and looked up %.2f s, the "
                   "lists taken %.2f s and sent %.2f s\n",
                   place_.rank, (unsigned long long)served_.groups,
                   session().multiple() ? " (each received while the one before is looked up)"
                                        : "",
                   served_.receive_seconds,
                   served_.unpack_seconds, served_.lookup_seconds, served_.take_seconds,
                   served_.send_seconds);
  }

  void answer() {
    SketchedBatch batch;
    batch.shapes.resize(1);  // all the features as one read: only the part's are looked up
    BatchHits hits;
    // The GPUs' path: the group looked up and the next one received
    // meanwhile; the lists taken and the previous group's, being sent.
    ReadsMessage reads[2];
    KeptLists lists[2];
    host::BackgroundTask sender;
    Header header;
    broadcast(header);
    for (unsigned at = 0;;) {
      if (header.kind == Kind::done) break;
      if (header.kind == Kind::reads) {
        header = answer_group(header, reads[at], reads[at ^ 1u], lists[at], sender);
        at ^= 1u;
        continue;
      }
      const std::uint64_t n = header.size[0];
      batch.features.resize(n);
      MPI_Bcast(batch.features.data(), as_count(n), MPI_UINT32_T, 0, MPI_COMM_WORLD);
      batch.offsets.assign({0, n});
      collect(batch, hits);
      send_hits(hits, n);
      broadcast(header);
    }
    sender.wait();
  }

  std::unique_ptr<GroupClassifier> start_groups(const GroupContext& context) const override;

  // Rank 0, the GPUs' path, a group at a time: its reads sent to every rank
  // (send_reads), then results[b][i] for read i of batch b, decided on its
  // GPU with every rank's lists (decide_sent). With MPI_THREAD_MULTIPLE the
  // next group is sent while this one is decided, on another thread (the
  // ranks answer in order: rank 0 receives a group's lists before the next
  // group's reads reach them); else one after the other, on one thread.
  bool looks_ahead() const { return session().multiple(); }
  void send_reads(std::span<const std::span<const ReadView>> reads) const {
    guarded(send_mutex_, [&] { broadcast_reads(reads); });
  }
  void decide_sent(std::span<const std::span<const ReadView>> reads,
                   std::span<const std::span<ReadResult>> results) const {
    guarded(receive_mutex_, [&] { decide_with_lists(reads, results); });
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
    guarded(mutex_, [&] { exchange_features(batch, hits, n); });
  }

 private:
  // `exchange` under `mutex`, its failure kept (the first): the job ends
  // with it (~MpiEngine), and an exchange of another thread waiting on MPI
  // gives up (wait_unless).
  template <class Exchange>
  void guarded(std::mutex& mutex, Exchange exchange) const {
    std::lock_guard lock(mutex);
    try {
      exchange();
    } catch (const std::exception& e) {
      std::lock_guard failed(failed_mutex_);
      if (!failing_) failed_ = e.what();
      failing_ = true;
      throw;
    }
  }

  [[noreturn]] static void abort_job(const std::string& message) {
    std::fprintf(stderr, "metawarp: error: %s\n", message.c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    std::abort();  // MPI_Abort does not return
  }

  // send_reads, under send_mutex_ (collectives: this thread's only).
  void broadcast_reads(std::span<const std::span<const ReadView>> reads) const {
    host::Stopwatch clock;
    pack_message(reads, sent_, threads_);
    Header header{Kind::reads, {sent_.batch_reads.size(), sent_.lengths.size() / 2,
                                sent_.packed.size(), sent_.invalid.size()}};
    broadcast(header);
    broadcast_array(sent_.batch_reads.data(), sent_.batch_reads.size(), failing_);
    broadcast_array(sent_.lengths.data(), sent_.lengths.size(), failing_);
    broadcast_array(sent_.packed.data(), sent_.packed.size(), failing_);
    broadcast_array(sent_.invalid.data(), sent_.invalid.size(), failing_);
    const double seconds = clock.lap();
    std::lock_guard lock(stats_mutex_);
    stats_.exchange_seconds += seconds;
    stats_.read_groups += 1;
    stats_.reads += header.size[1];
    stats_.bytes_broadcast += sent_.bytes();
  }

  // decide_sent, under receive_mutex_ (receives only).
  void decide_with_lists(std::span<const std::span<const ReadView>> reads,
                         std::span<const std::span<ReadResult>> results) const {
    host::Stopwatch clock;
    // Rank 0's own part looked up while the others' lists come.
    double local_seconds = 0;
    host::BackgroundTask local;
    local.start([&] {
      host::Stopwatch local_clock;
      decider_->start(*classifier_, reads);
      decider_->collect();
      local_seconds = local_clock.lap();
    });
    double exchange = 0, decide = 0;
    std::uint64_t hits = 0, bytes = 0;
    for (int r = 1; r < place_.ranks; ++r) {
      received_[std::size_t(r)].hits.clear();
      hits += receive_lists(r, received_[std::size_t(r)]);
      bytes += received_[std::size_t(r)].bytes();
    }
    exchange += clock.lap();
    local.wait();
    clock.lap();
    for (int r = 1; r < place_.ranks; ++r)
      if (!received_[std::size_t(r)].hits.empty()) decider_->add_kept(received_[std::size_t(r)]);
    decider_->finish(results);
    decide += clock.lap();
    std::lock_guard lock(stats_mutex_);
    stats_.exchange_seconds += exchange;
    stats_.collect_seconds += local_seconds;
    stats_.decide_seconds += decide;
    stats_.hits += hits;
    stats_.bytes_gathered += bytes;
  }

  // exchange, under mutex_.
  void exchange_features(const SketchedBatch& batch, BatchHits& hits, std::uint64_t n) const {
    host::Stopwatch clock;
    Header header{Kind::features, {n, 0, 0}};
    broadcast(header);
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
    // Every rank's reads go to its GPU as rank 0 cuts them (start()): its classifier too.
    if (place_.rank == 0 || gpus) classifier_.emplace(db_->metadata(), options);
  }

  // Whether the reads are decided on rank 0's GPU: where every rank with a
  // part keeps its lists on its GPU (PartReadDecider) and a list's length
  // fits KeptLists' byte; rank 0 must have a part.
  void agree_on_gpus(bool gpus, const ClassifierOptions& options) {
    if (gpus && collector_) decider_ = collector_->read_decider(options);
    const bool mine = gpus && db_->longest_list() <= 255 &&
                      (decider_ != nullptr || (place_.rank != 0 && !collector_));
    int all = mine ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    on_gpus_ = all == 1;
  }

  // The other ranks, the GPUs' path: the group `header` announced, received
  // into `current` unless it came ahead, is looked up, and its lists taken
  // into `lists` and sent by `sender`; returns the header after it. With
  // MPI_THREAD_MULTIPLE three threads overlap: the next group is received
  // into `next` (its header, and its reads if it has them; rank 0 broadcasts
  // it while it decides this one), this one is looked up, and the previous
  // group's lists are sent (`sender` takes one at a time, in order). A
  // failure here ends the job at once: the receiving thread may be waiting
  // for a broadcast that will never come.
  Header answer_group(const Header& header, ReadsMessage& current, ReadsMessage& next,
                      KeptLists& lists, host::BackgroundTask& sender) {
    if (!received_ahead_) receive_reads(header, current);
    Header after;
    const auto receive_next = [&] {
      broadcast(after);
      if (after.kind == Kind::reads) receive_reads(after, next);
    };
    host::BackgroundTask ahead;
    const bool overlap = session().multiple();
    if (overlap) ahead.start(receive_next);
    try {
      take_lists(current, lists);
      if (overlap)
        sender.start([this, &lists] { send_lists(lists); });  // waits for the previous send
      else
        send_lists(lists);
    } catch (const std::exception& e) {
      abort_job("--mpi: rank " + std::to_string(place_.rank) + ": " + e.what());
    }
    served_.groups += 1;
    if (overlap)
      ahead.wait();
    else
      receive_next();
    received_ahead_ = after.kind == Kind::reads;
    return after;
  }

  // The other ranks, the GPUs' path: a group's reads from rank 0.
  void receive_reads(const Header& header, ReadsMessage& message) {
    host::Stopwatch clock;
    message.batch_reads.resize(header.size[0]);
    message.lengths.resize(2 * header.size[1]);
    message.packed.resize(header.size[2]);
    message.invalid.resize(header.size[3]);
    broadcast_array(message.batch_reads.data(), message.batch_reads.size(), failing_);
    broadcast_array(message.lengths.data(), message.lengths.size(), failing_);
    broadcast_array(message.packed.data(), message.packed.size(), failing_);
    broadcast_array(message.invalid.data(), message.invalid.size(), failing_);
    served_.receive_seconds += clock.lap();
    unpack_message(message, threads_);
    served_.unpack_seconds += clock.lap();
  }

  // ... looked up in this rank's part on its GPU, the lists it keeps taken
  // into `lists`.
  void take_lists(const ReadsMessage& message, KeptLists& lists) {
    host::Stopwatch clock;
    // Emptied, their capacity kept from group to group (no pages to touch again).
    lists.chunk_hits.clear();
    lists.chunk_lists.clear();
    lists.masks.clear();
    lists.lengths.clear();
    lists.hits.clear();
    if (!decider_) return;
    const std::vector<std::span<const ReadView>> batches(message.views.begin(),
                                                         message.views.end());
    decider_->start(*classifier_, batches);
    decider_->collect();
    served_.lookup_seconds += clock.lap();
    decider_->take_kept(lists);
    served_.take_seconds += clock.lap();
  }

  // ... and sent to rank 0: their sizes, then (with hits) the arrays.
  void send_lists(const KeptLists& lists) {
    host::Stopwatch clock;
    std::uint64_t sizes[4] = {lists.chunk_hits.size(), lists.masks.size(), lists.lengths.size(),
                              lists.hits.size()};
    send_array(sizes, 4, 0);
    if (sizes[3] != 0) {
      send_array(lists.chunk_hits.data(), sizes[0], 0);
      send_array(lists.chunk_lists.data(), sizes[0], 0);
      send_array(lists.masks.data(), sizes[1], 0);
      send_array(lists.lengths.data(), sizes[2], 0);
      send_array(lists.hits.data(), sizes[3], 0);
    }
    served_.send_seconds += clock.lap();
  }

  // Rank 0: rank r's lists of the group (send_lists); returns their hits.
  std::uint64_t receive_lists(int r, KeptLists& lists) const {
    std::uint64_t sizes[4] = {0, 0, 0, 0};
    receive_array(sizes, 4, r, failing_);
    if (sizes[3] == 0) return 0;
    lists.chunk_hits.resize(sizes[0]);
    lists.chunk_lists.resize(sizes[0]);
    lists.masks.resize(sizes[1]);
    lists.lengths.resize(sizes[2]);
    lists.hits.resize(sizes[3]);
    receive_array(lists.chunk_hits.data(), sizes[0], r, failing_);
    receive_array(lists.chunk_lists.data(), sizes[0], r, failing_);
    receive_array(lists.masks.data(), sizes[1], r, failing_);
    receive_array(lists.lengths.data(), sizes[2], r, failing_);
    receive_array(lists.hits.data(), sizes[3], r, failing_);
    return sizes[3];
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
  unsigned threads_;  // -t: the reads packed (rank 0) and unpacked (the others) on them
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
  // The GPUs' path (on_gpus_): the collector as a PartReadDecider (a rank
  // with a part), and rank 0's messages, kept from group to group.
  bool on_gpus_ = false;
  PartReadDecider* decider_ = nullptr;
  // Rank 0: the first exchange's error (the job ends with it), and whether
  // there is one (read by the other thread's waits).
  mutable std::mutex failed_mutex_;
  mutable std::string failed_;
  mutable std::atomic<bool> failing_{false};
  // The GPUs' path on rank 0: the sending step's and the deciding step's
  // (each one thread at a time), and the account both add to.
  mutable std::mutex send_mutex_, receive_mutex_, stats_mutex_;
  mutable ReadsMessage sent_;
  mutable std::vector<KeptLists> received_ = std::vector<KeptLists>(std::size_t(place_.ranks));
  // The other ranks' account of the GPUs' path (serve(verbose)).
  struct Served {
    std::uint64_t groups = 0;
    double receive_seconds = 0, unpack_seconds = 0, lookup_seconds = 0, take_seconds = 0,
           send_seconds = 0;
  } served_;
  bool received_ahead_ = false;  // answer_group: the next group's reads came with its header
};

// Rank 0's streamed run on the GPUs' path: groups of batches (about
// group_text_bytes of text), each parsed and its reads sent to every rank,
// then decided on the GPUs at once and formatted. Looking ahead (MPI's
// threads allow it), the parse and the sending run in the driver's prepare
// step, beside the previous group's decisions; the format has a step of its
// own either way.
class MpiGroups final : public GroupClassifier {
 public:
  MpiGroups(const MpiEngine& engine, const GroupContext& context)
      : engine_(engine), context_(context), ahead_(engine.looks_ahead()) {}
  GroupLimits next_group() override { return {group_batch_bytes, group_text_bytes}; }
  // Cut, mates 2 cut, sent, decided, formatted, written: a group in each
  // step (four without the look-ahead), so that the next cut waits for no
  // group behind.
  std::size_t groups_in_flight() const override { return ahead_ ? 6 : 5; }
  void prepare(BatchGroup& group) override {
    if (ahead_) send(group, slot(group), prepare_seconds_);
  }
  void classify(BatchGroup& group) override {
    Slot& s = slot(group);
    if (!ahead_) send(group, s, parse_seconds_);
    host::Stopwatch clock;
    engine_.decide_sent(s.reads.reads, s.reads.results);
    classify_seconds_ += clock.lap();
  }
  // Formatted on a step of its own: rank 0's GPU decides the next group meanwhile.
  void finish(BatchGroup& group) override {
    host::Stopwatch clock;
    format_group(group, slot(group).parsed, context_);
    format_seconds_ += clock.lap();
  }
  void add_stages(QuerySummary::Stages& stages) const override {
    stages.parse += parse_seconds_ + prepare_seconds_;
    stages.classify += classify_seconds_;
    stages.format += format_seconds_;
  }

 private:
  // A group's parsed batches and their reads, from its parse to its format.
  struct Slot {
    std::vector<ParsedBatch> parsed;
    GroupReads reads;
  };
  // The driver's groups are its few slots, reused: a Slot each (a map's
  // elements stay where they are; the lock: the steps look at once).
  Slot& slot(const BatchGroup& group) {
    std::lock_guard lock(slots_mutex_);
    return slots_[&group];
  }
  void send(BatchGroup& group, Slot& s, double& seconds) {
    host::Stopwatch clock;
    parse_group(group, s.parsed, context_, s.reads);
    engine_.send_reads(s.reads.reads);
    seconds += clock.lap();
  }

  const MpiEngine& engine_;
  GroupContext context_;
  bool ahead_;
  std::mutex slots_mutex_;
  std::map<const BatchGroup*, Slot> slots_;
  double parse_seconds_ = 0, prepare_seconds_ = 0, classify_seconds_ = 0, format_seconds_ = 0;
};

std::unique_ptr<GroupClassifier> MpiEngine::start_groups(const GroupContext& context) const {
  if (!on_gpus_ || place_.rank != 0) return nullptr;
  return std::make_unique<MpiGroups>(*this, context);
}

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
