// The cost of sharding: a multi-value table of u64/u64 pairs as 1 shard and
// as N shards (distributed mode), insert and retrieval, each split into
// partition (multisplit), exchange, table work and merge (answers back in
// input order), timed with CUDA events. The plain single table (no
// distribution) and GPU 0's measured copy bandwidth are printed as the
// references: on one GPU the exchange is a device-to-device copy, so its
// floor is bytes / copy bandwidth; with the shards on distinct GPUs the
// floor is the bytes one GPU sends to the others over the measured peer
// copy rate between GPU 0 and GPU 1 (both directions at once, measured
// before the first row on several GPUs, so that the 1-shard reference runs
// as it always did, without peer access enabled).
//
//   bench_distributed --n 300000000 --shards 1,2,4,8 --values-per-key 4
//   bench_distributed --n 1000000 --shards 1,3            (quick check)
//   bench_distributed --n 134217728 --shards 1,2,4,8 --gpus 8 --weak
//
// Keys: n / values-per-key distinct keys, each with values-per-key values;
// the retrieval asks for every distinct key once (n values come back).
// Positions [0, distinct) hold every distinct key once (the queries); where
// the other copies sit is --order: `shuffled` (default) spreads them with no
// fixed distance between copies of a key, as a key's copies come in a real
// build (a k-mer of several genomes); `scattered` spreads them by a
// bijection over the remaining positions, but with rest = n - distinct a
// multiple of distinct its copies 2, 3, 4 of a key sit exactly `distinct`
// positions apart, 2^25 at n = 2^27: the insert grid's stride, so a 1-shard
// insert finds a key's window in cache more often than a shard's received
// pairs do (issue 28: 18.4 ms against 25.7 for the same pairs shuffled,
// which is what a shard's own pairs take); `strided` (the first generator)
// puts copy c of key j at c * distinct + j. With the table's
// grid capped at 2^20 blocks (2^25 groups of 8) and distinct = 2^25
// (n = 2^27, 4 values per key) `strided` has one group insert a key's 4
// copies back to back, the last 3 finding the key's window in cache. A
// plain or 1-shard insert gets that, a shard's received pairs cannot (its
// segments are shorter, its copies no longer one grid stride apart): issue
// 28's 14.4 against 19.8-20.0 ms of table kernels, a weak-scaling reference
// that only the generator made fast (--verbose lines A and B measure it).
// --gpus G puts shard s on GPU s % G (one shard per GPU: the NCCL exchange;
// several: peer copies). --weak makes n the pairs of each shard (weak
// scaling: about 2 GB of pairs per GPU is n = 134217728): every shard's batch
// is made on its own GPU and inserted with insert_from_shards (the full
// all-to-all), and the printed efficiency is the 1-shard time over this time.
// The weak retrieval has every shard ask for its own keys from its own GPU
// (retrieve_from_shards: the answers come back to the GPU that asked, into
// answer buffers kept from run to run as an application's query loop keeps
// them; the first run sizes them).
//
// --verbose adds, under each row, every shard's own table time (its table
// kernels, events on its stream; the row's table phase is the slowest
// shard's plus whatever kept them from running side by side), and at the
// end the plain table's insert again on GPU 0 and on every GPU at once (peer
// access enabled by then): whether a GPU's insert is slower beside the
// others or after peer access. With --weak and a row of several shards it
// then replays shard 0's insert on GPU 0 in plain tables (insert_experiments):
// which of capacity, key order, the shard's key set, two launches or pool
// memory makes a shard's table kernels slower than the plain insert.
//
// Every shard count runs once unmeasured (the warm-up: lazily loaded kernels,
// first allocations on each GPU, the library's memory pools filling) and
// then --repeat R times (default 3), each time on a fresh table made outside
// the timing; a row prints the median of each phase over the R runs and their
// sum as the total.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/cuda/event.hpp"
#include "metawarp/cuda/pooled_buffer.hpp"
#include "metawarp/cuda/stream.hpp"
#include "metawarp/tables/distributed/distributed_table.cuh"
#include "metawarp/tables/distributed/multisplit.cuh"
#include "metawarp/tables/launch.cuh"
#include "metawarp/tables/multi_value_table.cuh"

namespace mwc = metawarp::cuda;
namespace mwt = metawarp::tables;
// Every timed call names this stream: the legacy default stream, which orders
// with the unqualified kernel launches and cudaDeviceSynchronize used here.
const cudaStream_t bench_stream = cudaStreamLegacy;
namespace mwd = metawarp::tables::distributed;
using std::uint64_t;

namespace {

using Table = mwt::MultiValueHashTable<uint64_t, uint64_t>;
using Dist = mwd::DistributedTable<Table>;

enum class KeyOrder { strided, scattered, shuffled };

const char* order_name(KeyOrder order) {
  return order == KeyOrder::strided ? "strided" : order == KeyOrder::scattered ? "scattered" : "shuffled";
}

struct Options {
  uint64_t n = uint64_t(1) << 27;
  std::vector<unsigned> shards = {1, 2, 4, 8};
  uint64_t values_per_key = 4;
  double load = 0.8;
  unsigned gpus = 1;   // shard s on GPU s % gpus
  bool weak = false;   // n pairs per shard, inserted from the shards' own GPUs
  unsigned repeat = 3; // measured runs per shard count, after one warm-up
  bool verbose = false;  // per-shard table times; the plain insert beside the others
  KeyOrder order = KeyOrder::shuffled;  // --order
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument("missing value after " + arg);
      return argv[++i];
    };
    if (arg == "--n") {
      o.n = std::stoull(next());
    } else if (arg == "--values-per-key") {
      o.values_per_key = std::stoull(next());
    } else if (arg == "--load") {
      o.load = std::stod(next());
    } else if (arg == "--gpus") {
      o.gpus = unsigned(std::stoul(next()));
    } else if (arg == "--weak") {
      o.weak = true;
    } else if (arg == "--verbose") {
      o.verbose = true;
    } else if (arg == "--order") {
      const std::string order = next();
      if (order == "scattered") o.order = KeyOrder::scattered;
      else if (order == "strided") o.order = KeyOrder::strided;
      else if (order == "shuffled") o.order = KeyOrder::shuffled;
      else throw std::invalid_argument("--order is scattered, strided or shuffled, not " + order);
    } else if (arg == "--repeat") {
      o.repeat = unsigned(std::stoul(next()));
    } else if (arg == "--shards") {
      o.shards.clear();
      std::stringstream list(next());
      for (std::string item; std::getline(list, item, ',');) o.shards.push_back(unsigned(std::stoul(item)));
    } else {
      throw std::invalid_argument("unknown option " + arg +
                                  " (--n N --shards 1,2,4,8 --values-per-key R --load F"
                                  " --gpus G --weak --repeat R --verbose"
                                  " --order scattered|strided|shuffled)");
    }
  }
  if (o.n == 0 || o.values_per_key == 0 || o.values_per_key > o.n || o.shards.empty() ||
      o.load <= 0 || o.load >= 1 || o.gpus == 0 || o.repeat == 0) {
    throw std::invalid_argument(
        "need n > 0, 1 <= values-per-key <= n, 0 < load < 1, shards, gpus >= 1, repeat >= 1");
  }
  return o;
}

// Device-to-device copy rate, bytes read + written per second (best of 3).
double copy_bandwidth() {
  const uint64_t bytes = uint64_t(1) << 30;
  mwc::device_buffer<unsigned char> a(bytes), b(bytes);
  a.fill_bytes(1, bench_stream);
  mwc::event start, stop;
  double best = 1e30;
  for (int r = 0; r < 3; ++r) {
    start.record(bench_stream);
    mwc::check(cudaMemcpyAsync(b.data(), a.data(), bytes, cudaMemcpyDeviceToDevice), "D2D copy");
    stop.record(bench_stream);
    stop.synchronize();
    best = std::min(best, double(stop.elapsed_ms_since(start)) / 1e3);
  }
  return 2.0 * double(bytes) / best;
}

// key i = mix(first_key + index(i)) (never a sentinel), value i = i, on the
// current device. index(i) = i for i < distinct (every key once: the
// queries); past that, strided: i mod distinct; scattered: the position's
// image j under a bijection of [0, rest = n - distinct) (multiplication by a
// prime that does not divide rest), mod distinct; shuffled: j / (rest /
// distinct) where distinct divides rest (each key's copies are then the
// positions of rest / distinct consecutive images, which the bijection puts
// far apart at no fixed distance), else as scattered (--order above).
void generate(uint64_t n, uint64_t distinct, uint64_t first_key, uint64_t* keys,
              uint64_t* values, KeyOrder order) {
  const uint64_t rest = n - distinct;
  // Three primes near 2^31.5: their product exceeds 2^64, so one of them
  // does not divide rest.
  uint64_t prime = 0;
  for (const uint64_t p : {2654435761ull, 2246822519ull, 3266489917ull}) {
    if (rest == 0 || rest % p != 0) {
      prime = p;
      break;
    }
  }
  mwt::launch_thread_per_item(n, nullptr, [=] __device__(uint64_t i, bool valid) {
    if (!valid) return;
    uint64_t index = i % distinct;
    if (order != KeyOrder::strided && i >= distinct) {
      const uint64_t j = uint64_t((unsigned __int128)(i - distinct) * prime % rest);
      index = order == KeyOrder::shuffled && rest % distinct == 0 ? j / (rest / distinct)
                                                                  : j % distinct;
    }
    uint64_t k = mwt::fmix64(first_key + index + 0x9e3779b97f4a7c15ull);
    if (!mwt::KeySentinels<uint64_t>::is_valid(k)) k -= 2;
    keys[i] = k;
    values[i] = i;
  }, "generate pairs");
  mwc::check(cudaDeviceSynchronize(), "generating pairs");
}

// Lets `device` reach `peer`'s memory (already enabled is fine).
void enable_peer_access(int device, int peer) {
  mwd::DeviceGuard on(device);
  const cudaError_t status = cudaDeviceEnablePeerAccess(peer, 0);
  if (status == cudaErrorPeerAccessAlreadyEnabled) {
    cudaGetLastError();  // not an error here; leave no sticky last error
    return;
  }
  mwc::check(status, "cudaDeviceEnablePeerAccess");
}

// Peer copy rate between GPU 0 and GPU 1: bytes per second each way with both
// directions copying at once (what an all-to-all asks of the link), best of
// 3, host-timed around both copies; 0 without a peer path.
double peer_bandwidth() {
  int forward = 0, backward = 0;
  mwc::check(cudaDeviceCanAccessPeer(&forward, 0, 1), "cudaDeviceCanAccessPeer");
  mwc::check(cudaDeviceCanAccessPeer(&backward, 1, 0), "cudaDeviceCanAccessPeer");
  if (forward == 0 || backward == 0) return 0;
  enable_peer_access(0, 1);
  enable_peer_access(1, 0);
  const uint64_t bytes = uint64_t(1) << 30;
  std::vector<mwc::device_buffer<unsigned char>> from(2), to(2);
  std::vector<std::unique_ptr<mwc::stream>> streams;
  for (int d = 0; d < 2; ++d) {
    mwd::DeviceGuard on(d);
    from[d] = mwc::device_buffer<unsigned char>(bytes);
    to[d] = mwc::device_buffer<unsigned char>(bytes);
    streams.push_back(std::make_unique<mwc::stream>());
    from[d].fill_bytes(1, streams[d]->get());
    streams[d]->synchronize();
  }
  double best = 1e30;
  for (int r = 0; r < 4; ++r) {  // the first is a warm-up
    const auto start = std::chrono::steady_clock::now();
    for (int d = 0; d < 2; ++d) {
      mwd::DeviceGuard on(d);
      mwc::check(cudaMemcpyPeerAsync(to[1 - d].data(), 1 - d, from[d].data(), d, bytes,
                                     streams[d]->get()),
                 "peer copy");
    }
    for (int d = 0; d < 2; ++d) {
      mwd::DeviceGuard on(d);
      streams[d]->synchronize();
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (r > 0) best = std::min(best, seconds);
  }
  for (int d = 0; d < 2; ++d) {  // freed with their devices current
    mwd::DeviceGuard on(d);
    from[d] = {};
    to[d] = {};
  }
  return double(bytes) / best;
}

// The bytes an exchange moves: to other GPUs (per sending GPU, each way) and
// by device copies (a GPU to itself, or every copy when all shards share one
// GPU).
struct Traffic {
  double peer_bytes = 0;
  double copied_bytes = 0;
};

// The exchange's floor in ms: peer bytes over the peer rate and copied bytes
// (read + write) over the copy rate, the two at once; -1 (printed '-') when a
// rate it needs is unknown.
double floor_ms(const Traffic& t, double copy_bytes_per_s, double peer_bytes_per_s) {
  if (t.peer_bytes > 0 && peer_bytes_per_s <= 0) return -1;
  if (t.copied_bytes > 0 && copy_bytes_per_s <= 0) return -1;
  const double peer = t.peer_bytes > 0 ? t.peer_bytes / peer_bytes_per_s : 0;
  const double copied = t.copied_bytes > 0 ? 2.0 * t.copied_bytes / copy_bytes_per_s : 0;
  return 1e3 * std::max(peer, copied);
}

void print_row(const char* op, unsigned shards, uint64_t items, const mwd::PhaseTimes& t,
               double exchange_floor_ms, double reference_ms) {
  char floor[32] = "      -";
  if (exchange_floor_ms >= 0) std::snprintf(floor, sizeof floor, "%7.2f", exchange_floor_ms);
  std::printf("%-8s shards %2u  partition %8.2f ms  allocate %7.2f ms  exchange %8.2f ms "
              "(copy floor %s)  table %8.2f ms  merge %8.2f ms  total %9.2f ms  %6.3f G/s",
              op, shards, t.partition_ms, t.allocate_ms, t.exchange_ms, floor, t.table_ms,
              t.merge_ms, t.total_ms(), double(items) / (t.total_ms() / 1e3) / 1e9);
  if (reference_ms > 0) std::printf("  efficiency %5.1f %%", 100.0 * reference_ms / t.total_ms());
  std::printf("\n");
  std::fflush(stdout);
}

// --verbose: every shard's own table time (median over the runs).
void print_shard_tables(const char* op, const std::vector<mwd::PhaseTimes>& runs,
                        const std::vector<int>& devices) {
  std::printf("  %s per shard, table kernels (median):", op);
  for (std::size_t s = 0; s < devices.size(); ++s) {
    std::vector<double> v;
    for (const mwd::PhaseTimes& t : runs) {
      if (s < t.shard_table_ms.size()) v.push_back(t.shard_table_ms[s]);
    }
    if (v.empty()) continue;
    std::sort(v.begin(), v.end());
    const std::size_t h = v.size() / 2;
    const double m = v.size() % 2 == 1 ? v[h] : (v[h - 1] + v[h]) / 2;
    std::printf("  shard %zu (GPU %d) %.2f ms", s, devices[s], m);
  }
  std::printf("\n");
  std::fflush(stdout);
}

// Each phase's median over the runs (the total is then their sum).
mwd::PhaseTimes median(const std::vector<mwd::PhaseTimes>& runs) {
  auto middle = [&](double mwd::PhaseTimes::*phase) {
    std::vector<double> v;
    for (const mwd::PhaseTimes& t : runs) v.push_back(t.*phase);
    std::sort(v.begin(), v.end());
    return v.size() % 2 == 1 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  };
  mwd::PhaseTimes m;
  m.partition_ms = middle(&mwd::PhaseTimes::partition_ms);
  m.allocate_ms = middle(&mwd::PhaseTimes::allocate_ms);
  m.exchange_ms = middle(&mwd::PhaseTimes::exchange_ms);
  m.table_ms = middle(&mwd::PhaseTimes::table_ms);
  m.merge_ms = middle(&mwd::PhaseTimes::merge_ms);
  return m;
}

// --verbose, at the end (peer access enabled by the runs before it): the
// plain table's insert of n pairs on GPU 0 alone, then on every GPU at once
// (each its own table and pairs), each timed with events on its GPU. Beside
// the first plain insert and the rows' per-shard times this says whether an
// insert is slower after peer access, beside the other GPUs, or neither.
void plain_inserts_beside(const Options& o, uint64_t distinct) {
  const int gpus = int(o.gpus);
  const uint64_t capacity = uint64_t(double(o.n) / o.load);
  std::vector<mwc::device_buffer<uint64_t>> keys(gpus), values(gpus);
  std::vector<std::unique_ptr<Table>> tables(gpus);
  std::vector<std::unique_ptr<mwc::event>> start(gpus), stop(gpus);
  for (int g = 0; g < gpus; ++g) {
    mwd::DeviceGuard on(g);
    keys[g] = mwc::device_buffer<uint64_t>(o.n);
    values[g] = mwc::device_buffer<uint64_t>(o.n);
    generate(o.n, distinct, uint64_t(g) * distinct, keys[g].data(), values[g].data(), o.order);
    start[g] = std::make_unique<mwc::event>();
    stop[g] = std::make_unique<mwc::event>();
  }
  auto fresh = [&](int g) {  // a new empty table, cleared before the timing
    mwd::DeviceGuard on(g);
    tables[g].reset();
    tables[g] = std::make_unique<Table>(capacity, mwt::TableOptions{}, bench_stream);
    mwc::check(cudaDeviceSynchronize(), "clearing a plain table");
  };
  auto launch = [&](int g) {
    mwd::DeviceGuard on(g);
    start[g]->record(bench_stream);
    tables[g]->insert(keys[g].data(), values[g].data(), o.n, bench_stream);
    stop[g]->record(bench_stream);
  };
  auto report = [&](int g) {
    mwd::DeviceGuard on(g);
    stop[g]->synchronize();
    const mwt::Status status = tables[g]->peek_status(bench_stream);
    std::printf("  GPU %d %.2f ms%s", g, double(stop[g]->elapsed_ms_since(*start[g])),
                status.ok() ? "" : " STATUS NOT OK");
  };
  fresh(0);
  launch(0);
  std::printf("plain table insert, GPU 0 alone, after the runs:");
  report(0);
  std::printf("\nplain table insert, every GPU at once:");
  for (int g = 0; g < gpus; ++g) fresh(g);
  for (int g = 0; g < gpus; ++g) launch(g);
  for (int g = 0; g < gpus; ++g) report(g);
  std::printf("\n");
  for (int g = 0; g < gpus; ++g) {  // freed with their devices current
    mwd::DeviceGuard on(g);
    tables[g].reset();
    keys[g] = {};
    values[g] = {};
  }
}

// Median over 3 fresh plain tables of `capacity` slots on the current device
// of what `insert(table, stream, mark)` enqueues, timed with events on the
// stream; each mark() it calls between its launches records one more event,
// and `stages` gets the median time between consecutive events.
struct InsertTiming {
  double ms = 0;
  std::vector<double> stages;
};
template <class Insert>
InsertTiming time_plain_insert(uint64_t capacity, cudaStream_t stream, Insert insert) {
  constexpr int reps = 3;
  std::vector<double> totals;
  std::vector<std::vector<double>> stages;
  InsertTiming timing;
  for (int r = 0; r < reps; ++r) {
    Table table(capacity, {}, stream);
    mwc::check(cudaStreamSynchronize(stream), "clearing a plain table");
    std::vector<std::unique_ptr<mwc::event>> marks;
    auto mark = [&] {
      marks.push_back(std::make_unique<mwc::event>());
      marks.back()->record(stream);
    };
    mark();
    insert(table, stream, mark);
    mark();
    marks.back()->synchronize();
    if (!table.peek_status(stream).ok()) throw std::runtime_error("a plain insert failed");
    totals.push_back(marks.back()->elapsed_ms_since(*marks.front()));
    stages.resize(marks.size() - 1);
    for (std::size_t m = 1; m < marks.size(); ++m) {
      stages[m - 1].push_back(marks[m]->elapsed_ms_since(*marks[m - 1]));
    }
  }
  auto middle = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  timing.ms = middle(totals);
  for (const auto& v : stages) timing.stages.push_back(middle(v));
  return timing;
}

// --verbose --weak, after the runs: why a shard's table kernels are slower
// than the plain insert (issue 28: 19.8-20.0 ms against 14.4 at 2 GPUs for
// the same number of pairs). Shard 0's insert of the `shards`-shard row is
// replayed on GPU 0 in plain tables, one line each (median of 3):
//   capacity    the plain and the shard table's slots and load factor;
//   A, B, S     the plain table with the shard table's capacity, the bench's
//               n pairs in --order strided, scattered and shuffled (the same pairs);
//   C, D        the pairs shard 0 received (its own segment, then every other
//               GPU's, as the exchange delivers them: each batch split with
//               the bench's owner), from a device_buffer in one launch, and
//               in two (own + received, the library's two launches);
//   E           C's pairs from GPU 0's memory pool (shared with the peers).
// A = B = C: neither order nor key set matters, the shard's slowness comes
// from the distributed run (streams, NCCL beside it); C > A with C = E: the
// shard's pairs themselves; E > C: pool memory; A > the plain insert: the
// capacity. A < B < S = C (2 x H100: 14.6, 18.4, 25.7, 25.7 ms): the
// orders' cache reuse; a shard's pairs insert as fast as the same number of
// pairs in an order without it.
void insert_experiments(const Options& o, uint64_t distinct, unsigned shards) {
  mwd::DeviceGuard on(0);
  mwc::stream stream;
  const cudaStream_t st = stream.get();
  const uint64_t plain_capacity = uint64_t(double(o.n) / o.load);
  // The same formula as the rows' per-shard capacity (weak: n pairs per shard).
  const uint64_t shard_capacity = uint64_t(double(o.n * shards) / shards / o.load) + 1024;
  const mwd::HashOwner owner(shards);

  // Shard 0's pairs: from GPU s's batch (made here with GPU s's first key)
  // the pairs owner() gives to shard 0, in input order (the split is stable).
  mwc::device_buffer<uint64_t> received_keys, received_values;
  uint64_t own = 0, received = 0;
  {
    mwc::device_buffer<uint64_t> batch_keys(o.n), batch_values(o.n), split_keys(o.n),
        split_values(o.n);
    std::vector<mwc::device_buffer<uint64_t>> segment_keys(shards), segment_values(shards);
    for (unsigned s = 0; s < shards; ++s) {
      generate(o.n, distinct, s * distinct, batch_keys.data(), batch_values.data(), o.order);
      const mwd::SplitOffsets split =
          mwd::multisplit(batch_keys.data(), batch_values.data(), o.n, owner, split_keys.data(),
                          split_values.data(), static_cast<uint64_t*>(nullptr), st);
      const uint64_t count = split.count(0);
      segment_keys[s] = mwc::device_buffer<uint64_t>(count);
      segment_values[s] = mwc::device_buffer<uint64_t>(count);
      mwc::check(cudaMemcpyAsync(segment_keys[s].data(), split_keys.data() + split.offsets[0],
                                 count * sizeof(uint64_t), cudaMemcpyDeviceToDevice, st),
                 "copying shard 0's keys");
      mwc::check(cudaMemcpyAsync(segment_values[s].data(), split_values.data() + split.offsets[0],
                                 count * sizeof(uint64_t), cudaMemcpyDeviceToDevice, st),
                 "copying shard 0's values");
      stream.synchronize();
      (s == 0 ? own : received) += count;
    }
    received_keys = mwc::device_buffer<uint64_t>(own + received);
    received_values = mwc::device_buffer<uint64_t>(own + received);
    uint64_t at = 0;
    for (unsigned s = 0; s < shards; ++s) {
      const uint64_t count = segment_keys[s].size();
      mwc::check(cudaMemcpyAsync(received_keys.data() + at, segment_keys[s].data(),
                                 count * sizeof(uint64_t), cudaMemcpyDeviceToDevice, st),
                 "gathering shard 0's keys");
      mwc::check(cudaMemcpyAsync(received_values.data() + at, segment_values[s].data(),
                                 count * sizeof(uint64_t), cudaMemcpyDeviceToDevice, st),
                 "gathering shard 0's values");
      at += count;
    }
    stream.synchronize();
  }
  const uint64_t m = own + received;

  std::printf("insert experiments (GPU 0, plain tables, median of 3; shard 0 of %u):\n", shards);
  {
    const Table plain(plain_capacity, {}, st), shard(shard_capacity, {}, st);
    stream.synchronize();
    std::printf("  capacity: plain %llu slots (load %.4f with %llu pairs), shard %llu slots "
                "(load %.4f with shard 0's %llu pairs)\n",
                (unsigned long long)plain.capacity(), double(o.n) / double(plain.capacity()),
                (unsigned long long)o.n, (unsigned long long)shard.capacity(),
                double(m) / double(shard.capacity()), (unsigned long long)m);
  }
  {
    mwc::device_buffer<uint64_t> keys(o.n), values(o.n);
    for (const KeyOrder order : {KeyOrder::strided, KeyOrder::scattered, KeyOrder::shuffled}) {
      generate(o.n, distinct, 0, keys.data(), values.data(), order);
      const InsertTiming t = time_plain_insert(shard_capacity, st, [&](Table& table,
                                                                      cudaStream_t s, auto&) {
        table.insert(keys.data(), values.data(), o.n, s);
      });
      std::printf("  %s shard-capacity table, the bench's %llu pairs, %s order: %.2f ms\n",
                  order == KeyOrder::strided ? "A" : order == KeyOrder::scattered ? "B" : "S",
                  (unsigned long long)o.n, order_name(order), t.ms);
    }
  }
  const InsertTiming one = time_plain_insert(shard_capacity, st, [&](Table& table, cudaStream_t s,
                                                                     auto&) {
    table.insert(received_keys.data(), received_values.data(), m, s);
  });
  std::printf("  C shard-capacity table, shard 0's %llu pairs (own %llu + received %llu), "
              "device_buffer, one launch: %.2f ms\n",
              (unsigned long long)m, (unsigned long long)own, (unsigned long long)received,
              one.ms);
  const InsertTiming two = time_plain_insert(shard_capacity, st, [&](Table& table,
                                                                     cudaStream_t s, auto& mark) {
    table.insert(received_keys.data(), received_values.data(), own, s);
    mark();
    table.insert(received_keys.data() + own, received_values.data() + own, received, s);
  });
  std::printf("  D the same, two launches: own %.2f ms + received %.2f ms = %.2f ms\n",
              two.stages[0], two.stages[1], two.ms);
  {
    auto pooled_keys = mwc::make_pooled<uint64_t>(m, st);
    auto pooled_values = mwc::make_pooled<uint64_t>(m, st);
    mwc::check(cudaMemcpyAsync(pooled_keys.data(), received_keys.data(), m * sizeof(uint64_t),
                               cudaMemcpyDeviceToDevice, st), "copying to pool memory");
    mwc::check(cudaMemcpyAsync(pooled_values.data(), received_values.data(), m * sizeof(uint64_t),
                               cudaMemcpyDeviceToDevice, st), "copying to pool memory");
    const InsertTiming pooled = time_plain_insert(shard_capacity, st, [&](Table& table,
                                                                          cudaStream_t s, auto&) {
      table.insert(pooled_keys.data(), pooled_values.data(), m, s);
    });
    std::printf("  E the same pairs from GPU 0's memory pool, one launch: %.2f ms\n", pooled.ms);
    stream.synchronize();  // the pooled buffers go back on st
  }
  std::fflush(stdout);
}

std::string device_list(const std::vector<int>& devices) {
  std::string text;
  for (const int d : devices) text += (text.empty() ? "" : ",") + std::to_string(d);
  return text;
}

}  // namespace

int main(int argc, char** argv) try {
  const Options o = parse(argc, argv);
  int device = 0;
  mwc::check(cudaGetDevice(&device), "cudaGetDevice");
  cudaDeviceProp prop{};
  mwc::check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  const uint64_t distinct = o.n / o.values_per_key;
  std::printf("device %d: %s; %llu u64/u64 pairs, %llu distinct keys (%llu values each, %s order), load %.2f\n",
              device, prop.name, (unsigned long long)o.n, (unsigned long long)distinct,
              (unsigned long long)o.values_per_key, order_name(o.order), o.load);
  const double copy = copy_bandwidth();
  std::printf("reference: device-to-device memcpy %.1f GB/s (read + write)\n", copy / 1e9);

  mwc::device_buffer<uint64_t> keys(o.n), values(o.n);
  generate(o.n, distinct, 0, keys.data(), values.data(), o.order);
  // The retrieval queries: every distinct key once (the first `distinct` keys).
  const uint64_t* queries = keys.data();

  {  // Plain table, no distribution: the reference for "table" time.
    Table table(uint64_t(double(o.n) / o.load), {}, bench_stream);
    mwc::event start, mid, stop;
    start.record(bench_stream);
    table.insert(keys.data(), values.data(), o.n, bench_stream);
    mid.record(bench_stream);
    mwc::device_buffer<uint64_t> offsets(distinct + 1);
    const uint64_t total = table.retrieve_offsets(queries, distinct, offsets.data(), bench_stream);
    mwc::device_buffer<uint64_t> out(total);
    table.retrieve(queries, distinct, offsets.data(), out.data(), bench_stream);
    stop.record(bench_stream);
    stop.synchronize();
    const mwt::Status status = table.peek_status(bench_stream);
    const double insert_ms = mid.elapsed_ms_since(start), retrieve_ms = stop.elapsed_ms_since(mid);
    std::printf("plain table: insert %.2f ms (%.3f G/s), retrieve %.2f ms (%.3f G values/s)%s\n",
                insert_ms, double(o.n) / insert_ms / 1e6, retrieve_ms,
                double(total) / retrieve_ms / 1e6, status.ok() ? "" : "  STATUS NOT OK");
  }

  // Weak scaling: each row against the first row's times (its shard count
  // should be 1).
  double reference_insert_ms = 0, reference_retrieve_ms = 0;
  double peer = 0;  // measured before the first row on several GPUs
  bool peer_measured = false;
  for (unsigned shards : o.shards) {
    std::vector<int> devices(shards);
    for (unsigned s = 0; s < shards; ++s) devices[s] = int(s % o.gpus);
    const uint64_t pairs = o.weak ? o.n * shards : o.n;
    const uint64_t keys_asked = o.weak ? distinct * shards : distinct;
    const uint64_t per_shard = uint64_t(double(pairs) / shards / o.load) + 1024;
    // One shard per GPU (shards <= gpus): the exchange crosses GPUs.
    const bool across_gpus = shards > 1 && o.gpus > 1 && shards <= o.gpus;
    if (across_gpus && !peer_measured) {
      peer_measured = true;
      peer = peer_bandwidth();
      if (peer > 0) {
        std::printf("reference: peer copy GPU 0 <-> GPU 1 %.1f GB/s each way (both directions at "
                    "once)\n", peer / 1e9);
      } else {
        std::printf("reference: no peer path between GPU 0 and GPU 1\n");
      }
    }
    // The weak run's inputs, made once: shard s's batch on its own GPU (its
    // keys distinct from the other shards'), whose first `distinct` keys are
    // the ones it asks for.
    std::vector<mwc::device_buffer<uint64_t>> shard_keys(shards), shard_values(shards);
    std::vector<mwd::ShardBatch<uint64_t, uint64_t>> batches(shards);
    std::vector<mwd::ShardQueries<uint64_t>> asked(shards);
    if (o.weak) {
      for (unsigned s = 0; s < shards; ++s) {
        mwd::DeviceGuard on(devices[s]);
        shard_keys[s] = mwc::device_buffer<uint64_t>(o.n);
        shard_values[s] = mwc::device_buffer<uint64_t>(o.n);
        generate(o.n, distinct, s * distinct, shard_keys[s].data(), shard_values[s].data(),
                 o.order);
        batches[s] = {shard_keys[s].data(), shard_values[s].data(), o.n};
        asked[s] = {shard_keys[s].data(), distinct};
      }
    }
    // Run 0 is the warm-up; every run builds its table (NCCL setup included)
    // before the timed insert and frees it before the next.
    std::vector<mwd::PhaseTimes> inserts, retrievals;
    std::vector<mwd::ShardAnswers<uint64_t>> answers;  // reused by every run's retrieval
    std::string shard_loads;  // --verbose: each shard table's slots and pairs (last run)
    uint64_t total = 0;
    for (unsigned run = 0; run <= o.repeat; ++run) {
      Dist table(devices, mwd::HashOwner(shards),
                 [&](unsigned) { return Table(per_shard, {}, bench_stream); });
      if (run == 0) {
        std::printf("%u shards on GPUs %s (%s exchange), %llu pairs, median of %u runs after a "
                    "warm-up\n", shards, device_list(devices).c_str(), table.exchange_name(),
                    (unsigned long long)pairs, o.repeat);
      }
      if (o.weak) {
        table.insert_from_shards(batches);
      } else {
        table.insert(keys.data(), values.data(), o.n, bench_stream);
      }
      const mwd::PhaseTimes insert_times = table.last_times();
      if (o.weak) {
        total = 0;
        table.retrieve_from_shards(asked, answers);
        for (const auto& shard_answers : answers) total += shard_answers.total;
      } else {
        mwc::device_buffer<uint64_t> offsets(keys_asked + 1);
        mwc::device_buffer<uint64_t> out;
        total = table.retrieve(queries, keys_asked, offsets.data(), out, bench_stream);
      }
      const mwt::Status status = table.peek_status();
      if (!status.ok() || total != pairs) {
        std::printf("  CHECK FAILED: status %#x, %llu values retrieved (expected %llu)\n",
                    status.bits(), (unsigned long long)total, (unsigned long long)pairs);
        return 1;
      }
      if (run == 0) continue;
      if (o.verbose && run == o.repeat) {
        shard_loads.clear();
        for (unsigned s = 0; s < shards; ++s) {
          mwd::DeviceGuard on(devices[s]);
          const Table& shard = table.shard(s);
          const uint64_t stored = shard.size(bench_stream);
          char text[160];
          std::snprintf(text, sizeof text, "  shard %u %llu slots %llu pairs load %.4f", s,
                        (unsigned long long)shard.capacity(), (unsigned long long)stored,
                        double(stored) / double(shard.capacity()));
          shard_loads += text;
        }
      }
      inserts.push_back(insert_times);
      retrievals.push_back(table.last_times());
    }
    const mwd::PhaseTimes insert = median(inserts), retrieval = median(retrievals);
    // What crosses: a fraction (S-1)/S of every batch goes to other shards;
    // an insert's own segment does not move (its table reads it in place), a
    // retrieval's keys, counts and values do (own ones by a device copy).
    // Weak: every GPU sends its share; otherwise all leaves GPU 0.
    const double away = double(shards - 1) / shards;
    const double insert_bytes = double(pairs) * 2 * sizeof(uint64_t);
    const double retrieve_bytes =
        double(keys_asked) * 2 * sizeof(uint64_t) + double(total) * sizeof(uint64_t);
    Traffic insert_traffic, retrieve_traffic;
    if (across_gpus) {
      const double senders = o.weak ? shards : 1;
      insert_traffic.peer_bytes = insert_bytes * away / senders;
      retrieve_traffic.peer_bytes = retrieve_bytes * away / senders;
      // Its own keys, counts and values: a device copy beside the transfers.
      retrieve_traffic.copied_bytes = retrieve_bytes / shards / (o.weak ? shards : 1);
    } else if (o.gpus == 1) {
      insert_traffic.copied_bytes = insert_bytes * away;
      retrieve_traffic.copied_bytes = retrieve_bytes;
    } else {  // several shards per GPU: no floor
      insert_traffic.peer_bytes = retrieve_traffic.peer_bytes = 1;
    }
    const double copy_rate = o.gpus == 1 || across_gpus ? copy : 0;
    const double peer_rate = across_gpus ? peer : 0;
    if (o.weak && reference_insert_ms == 0) reference_insert_ms = insert.total_ms();
    print_row("insert", shards, pairs, insert, floor_ms(insert_traffic, copy_rate, peer_rate),
              reference_insert_ms);
    if (o.verbose) {
      print_shard_tables("insert", inserts, devices);
      std::printf("  insert shard tables:%s\n", shard_loads.c_str());
    }
    if (o.weak && reference_retrieve_ms == 0) reference_retrieve_ms = retrieval.total_ms();
    print_row("retrieve", shards, total, retrieval,
              floor_ms(retrieve_traffic, copy_rate, peer_rate), reference_retrieve_ms);
    if (o.verbose) print_shard_tables("retrieve", retrievals, devices);
  }
  if (o.verbose) {
    plain_inserts_beside(o, distinct);
    // The first row of several shards with one shard per GPU (the exchange
    // across GPUs), as the issue's 2-GPU row.
    for (unsigned shards : o.shards) {
      if (o.weak && shards > 1 && shards <= o.gpus) {
        insert_experiments(o, distinct, shards);
        break;
      }
    }
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_distributed: %s\n", e.what());
  return 1;
}
