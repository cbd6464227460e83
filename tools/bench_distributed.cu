// The cost of sharding: a multi-value table of u64/u64 pairs as 1 shard and
// as N shards (distributed mode), insert and retrieval, each split into
// partition (multisplit), exchange, table work and merge (answers back in
// input order), timed with CUDA events. The plain single table (no
// distribution) and GPU 0's measured copy bandwidth are printed as the
// references: on one GPU the exchange is a device-to-device copy, so its
// floor is bytes / copy bandwidth.
//
//   bench_distributed --n 300000000 --shards 1,2,4,8 --values-per-key 4
//   bench_distributed --n 1000000 --shards 1,3            (quick check)
//   bench_distributed --n 134217728 --shards 1,2,4,8 --gpus 8 --weak
//
// Keys: n / values-per-key distinct keys, each with values-per-key values;
// the retrieval asks for every distinct key once (n values come back).
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
// Every shard count runs once unmeasured (the warm-up: lazily loaded kernels,
// first allocations on each GPU, the library's memory pools filling) and
// then --repeat R times (default 3), each time on a fresh table made outside
// the timing; a row prints the median of each phase over the R runs and their
// sum as the total.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/cuda/event.hpp"
#include "metawarp/tables/distributed/distributed_table.cuh"
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

struct Options {
  uint64_t n = uint64_t(1) << 27;
  std::vector<unsigned> shards = {1, 2, 4, 8};
  uint64_t values_per_key = 4;
  double load = 0.8;
  unsigned gpus = 1;   // shard s on GPU s % gpus
  bool weak = false;   // n pairs per shard, inserted from the shards' own GPUs
  unsigned repeat = 3; // measured runs per shard count, after one warm-up
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
    } else if (arg == "--repeat") {
      o.repeat = unsigned(std::stoul(next()));
    } else if (arg == "--shards") {
      o.shards.clear();
      std::stringstream list(next());
      for (std::string item; std::getline(list, item, ',');) o.shards.push_back(unsigned(std::stoul(item)));
    } else {
      throw std::invalid_argument("unknown option " + arg +
                                  " (--n N --shards 1,2,4,8 --values-per-key R --load F"
                                  " --gpus G --weak --repeat R)");
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

// key i = mix(first_key + i mod distinct) (never a sentinel), value i = i, on
// the current device.
void generate(uint64_t n, uint64_t distinct, uint64_t first_key, uint64_t* keys,
              uint64_t* values) {
  mwt::launch_thread_per_item(n, nullptr, [=] __device__(uint64_t i, bool valid) {
    if (!valid) return;
    uint64_t k = mwt::fmix64(first_key + (i % distinct) + 0x9e3779b97f4a7c15ull);
    if (!mwt::KeySentinels<uint64_t>::is_valid(k)) k -= 2;
    keys[i] = k;
    values[i] = i;
  }, "generate pairs");
  mwc::check(cudaDeviceSynchronize(), "generating pairs");
}

// copy_bytes_per_s 0: no floor printed (the exchange crosses GPUs).
void print_row(const char* op, unsigned shards, uint64_t items, const mwd::PhaseTimes& t,
               double copy_bytes_per_s, uint64_t exchanged_bytes, double reference_ms) {
  char floor[32] = "      -";
  if (copy_bytes_per_s > 0) {
    std::snprintf(floor, sizeof floor, "%7.2f",
                  1e3 * double(exchanged_bytes) * 2.0 / copy_bytes_per_s);
  }
  std::printf("%-8s shards %2u  partition %8.2f ms  allocate %7.2f ms  exchange %8.2f ms "
              "(copy floor %s)  table %8.2f ms  merge %8.2f ms  total %9.2f ms  %6.3f G/s",
              op, shards, t.partition_ms, t.allocate_ms, t.exchange_ms, floor, t.table_ms,
              t.merge_ms, t.total_ms(), double(items) / (t.total_ms() / 1e3) / 1e9);
  if (reference_ms > 0) std::printf("  efficiency %5.1f %%", 100.0 * reference_ms / t.total_ms());
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
  std::printf("device %d: %s; %llu u64/u64 pairs, %llu distinct keys (%llu values each), load %.2f\n",
              device, prop.name, (unsigned long long)o.n, (unsigned long long)distinct,
              (unsigned long long)o.values_per_key, o.load);
  const double copy = copy_bandwidth();
  std::printf("reference: device-to-device memcpy %.1f GB/s (read + write)\n", copy / 1e9);

  mwc::device_buffer<uint64_t> keys(o.n), values(o.n);
  generate(o.n, distinct, 0, keys.data(), values.data());
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
  for (unsigned shards : o.shards) {
    std::vector<int> devices(shards);
    for (unsigned s = 0; s < shards; ++s) devices[s] = int(s % o.gpus);
    const uint64_t pairs = o.weak ? o.n * shards : o.n;
    const uint64_t keys_asked = o.weak ? distinct * shards : distinct;
    const uint64_t per_shard = uint64_t(double(pairs) / shards / o.load) + 1024;
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
        generate(o.n, distinct, s * distinct, shard_keys[s].data(), shard_values[s].data());
        batches[s] = {shard_keys[s].data(), shard_values[s].data(), o.n};
        asked[s] = {shard_keys[s].data(), distinct};
      }
    }
    // Run 0 is the warm-up; every run builds its table (NCCL setup included)
    // before the timed insert and frees it before the next.
    std::vector<mwd::PhaseTimes> inserts, retrievals;
    std::vector<mwd::ShardAnswers<uint64_t>> answers;  // reused by every run's retrieval
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
      inserts.push_back(insert_times);
      retrievals.push_back(table.last_times());
    }
    const mwd::PhaseTimes insert = median(inserts), retrieval = median(retrievals);
    const double floor_rate = o.gpus == 1 ? copy : 0;
    if (o.weak && reference_insert_ms == 0) reference_insert_ms = insert.total_ms();
    print_row("insert", shards, pairs, insert, floor_rate, pairs * 2 * sizeof(uint64_t),
              reference_insert_ms);
    if (o.weak && reference_retrieve_ms == 0) reference_retrieve_ms = retrieval.total_ms();
    // Exchanged: keys out, counts back, values back.
    print_row("retrieve", shards, total, retrieval, floor_rate,
              keys_asked * 2 * sizeof(uint64_t) + total * sizeof(uint64_t), reference_retrieve_ms);
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_distributed: %s\n", e.what());
  return 1;
}
