#pragma once
// DistributedTable: one hash table of the library (single-value, multi-value
// or bucket-list) per shard, shards on a list of devices (several per device
// allowed). Two modes (WarpCore section IV-E):
//
//   distributed   every key lives on one shard, owner(key) (owner.hpp). A
//                 batch is split by owner on its device (multisplit.cuh), the
//                 pieces travel to their shards (exchange.cuh), each shard
//                 works on its piece, answers travel back and are put in
//                 input order. A key's values all live on one shard, so a
//                 multi-value retrieval never merges.
//   independent   one table per shard holding whatever was inserted there
//                 (in-place batches, or a batch cut into one chunk per shard);
//                 queries go to every shard and the answers are merged: find
//                 takes the first shard (lowest number) that has the key,
//                 retrieve concatenates the shards' values in shard order.
//
// Batches given as one array live on shard 0's device; insert_from_shards
// and retrieve_from_shards take one batch per shard (each on its own device)
// and run the full all-to-all, the latter returning each shard's answers on
// its own device. Operations are synchronous: they wait for `stream` (the
// caller's work producing the inputs) and return with all outputs written.
// Results are in input order and do not depend on the number of shards, the
// device list or the exchange (retrieve's values per key come in the order
// the owning table yields them). Status: the OR of the shards' statuses.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/cuda/error.hpp"
#include "metawarp/cuda/pinned_buffer.hpp"
#include "metawarp/tables/distributed/exchange.cuh"
#include "metawarp/tables/distributed/make_exchange.cuh"
#include "metawarp/tables/distributed/multisplit.cuh"
#include "metawarp/tables/distributed/owner.hpp"
#include "metawarp/tables/distributed/phase_times.cuh"
#include "metawarp/tables/distributed/shard_set.cuh"
#include "metawarp/tables/distributed/transfer.hpp"
#include "metawarp/tables/launch.cuh"
#include "metawarp/tables/scan.cuh"
#include "metawarp/tables/sentinels.hpp"
#include "metawarp/tables/status.hpp"

namespace metawarp::tables::distributed {

enum class Mode { distributed, independent };

struct DistributedOptions {
  Mode mode = Mode::distributed;
  ExchangeKind exchange = ExchangeKind::automatic;
};

// What a shard table must offer for find (single-value tables) and for
// retrieve (multi-value and bucket-list tables).
template <class T>
concept FindTable = requires(const T& t, const typename T::key_type* k,
                             typename T::value_type* v, Status* s) {
  t.find(k, std::uint64_t{}, v, typename T::value_type{}, cudaStream_t{}, s);
};
template <class T>
concept RetrieveTable = requires(const T& t, const typename T::key_type* k, const std::uint64_t* o,
                                 typename T::value_type* v, std::uint64_t* c) {
  t.count(k, std::uint64_t{}, c, cudaStream_t{});
  t.retrieve(k, std::uint64_t{}, o, v, cudaStream_t{});
};

// A batch of pairs resident on one shard's device.
template <class K, class V>
struct ShardBatch {
  const K* keys = nullptr;
  const V* values = nullptr;
  std::uint64_t n = 0;
};

namespace detail {

// Answers j (shard 0's buffers) -> input order. Distributed (source != null):
// answer j belongs to input source[j]. Independent (source == null): answer
// d * n + i is shard d's for input i, the first shard having the key wins.
template <class V>
void merge_found(const std::uint64_t* source, unsigned shards, std::uint64_t n, const V* answers,
                 const Status* status, V* values_out, Status* status_out, cudaStream_t st) {
  if (source != nullptr) {
    launch_thread_per_item(n, st, [=] __device__(std::uint64_t j, bool valid) {
      if (!valid) return;
      const std::uint64_t i = source[j];
      values_out[i] = answers[j];
      if (status_out != nullptr) status_out[i] = status[j];
    }, "distributed find merge");
    return;
  }
  launch_thread_per_item(n, st, [=] __device__(std::uint64_t i, bool valid) {
    if (!valid) return;
    unsigned d = 0;
    while (d + 1 < shards && !status[d * n + i].ok()) ++d;
    values_out[i] = answers[d * n + i];
    if (status_out != nullptr) status_out[i] = status[d * n + i];
  }, "independent find merge");
}

inline void merge_contains(const std::uint64_t* source, unsigned shards, std::uint64_t n,
                           const bool* answers, bool* out, cudaStream_t st) {
  if (source != nullptr) {
    launch_thread_per_item(n, st, [=] __device__(std::uint64_t j, bool valid) {
      if (valid) out[source[j]] = answers[j];
    }, "distributed contains merge");
    return;
  }
  launch_thread_per_item(n, st, [=] __device__(std::uint64_t i, bool valid) {
    if (!valid) return;
    bool any = false;
    for (unsigned d = 0; d < shards; ++d) any = any || answers[d * n + i];
    out[i] = any;
  }, "independent contains merge");
}

// Per-answer counts and the shards' values in answer order -> offsets and
// values in input order (independent: a key's values shard by shard), in two
// enqueued steps so that the merges of several askers (retrieve_from_shards)
// run side by side on their GPUs: counts() places each key's total and scans
// them into offsets_out; once the stream has passed it, total() is the number
// of values and values() places them. Everything on the current device and
// `st`; the merge must live until the stream has passed values(). `totals`:
// two page-locked words of the caller's (allocating them is slow), so that the
// scans' totals come back without blocking the host.
template <class V>
class RetrieveMerge {
 public:
  explicit RetrieveMerge(std::uint64_t* totals) : totals_(totals) {}

  void counts(const std::uint64_t* source, unsigned shards, std::uint64_t n, std::uint64_t slots,
              const std::uint64_t* counts, std::uint64_t* offsets_out, cudaStream_t st) {
    source_ = source, n_ = n, slots_ = slots, counts_ = counts, offsets_ = offsets_out;
    const unsigned copies = source != nullptr ? 1 : shards;
    // Per-key totals in input order, scanned into the output offsets.
    launch_thread_per_item(n, st, [=] __device__(std::uint64_t j, bool valid) {
      if (!valid) return;
      if (source != nullptr) {
        offsets_out[source[j]] = counts[j];
        return;
      }
      std::uint64_t sum = 0;
      for (unsigned d = 0; d < copies; ++d) sum += counts[d * n + j];
      offsets_out[j] = sum;
    }, "retrieve merge counts");
    counts_to_offsets_async(offsets_out, n, st, output_scan_, totals_);
    // Where answer j's values start among the answers: the scan of the counts.
    answer_offsets_ = cuda::device_buffer<std::uint64_t>(slots + 1);
    if (slots > 0) {
      cuda::check(cudaMemcpyAsync(answer_offsets_.data(), counts, slots * sizeof(std::uint64_t),
                                  cudaMemcpyDeviceToDevice, st),
                  "copying retrieved counts");
    }
    counts_to_offsets_async(answer_offsets_.data(), slots, st, answer_scan_, totals_ + 1);
  }

  std::uint64_t total() const { return totals_[0]; }

  void values(const V* answer_values, cuda::device_buffer<V>& values_out, cudaStream_t st) {
    if (values_out.size() < total()) values_out = cuda::device_buffer<V>(total());
    V* out = values_out.data();
    const std::uint64_t* from = answer_offsets_.data();
    const std::uint64_t* source = source_;
    const std::uint64_t n = n_;
    const std::uint64_t* counts = counts_;
    const std::uint64_t* offsets = offsets_;
    launch_group_per_item<8>(slots_, st, [=] __device__(const cg::thread_block_tile<8>& g,
                                                        std::uint64_t j) {
      const std::uint64_t i = source != nullptr ? source[j] : j % n;
      std::uint64_t at = offsets[i];
      for (std::uint64_t d = 0; source == nullptr && d < j / n; ++d) at += counts[d * n + i];
      const std::uint64_t c = counts[j];
      for (std::uint64_t k = g.thread_rank(); k < c; k += 8) out[at + k] = answer_values[from[j] + k];
    }, "retrieve merge values");
  }

 private:
  const std::uint64_t* source_ = nullptr;
  std::uint64_t n_ = 0, slots_ = 0;
  const std::uint64_t* counts_ = nullptr;
  std::uint64_t* offsets_ = nullptr;
  cuda::device_buffer<std::uint64_t> answer_offsets_;
  cuda::device_buffer<unsigned char> output_scan_, answer_scan_;
  std::uint64_t* totals_;  // the output's (total()) and the answers' (not needed)
};

// One merge, waited for; returns the total number of values. `totals`: as
// RetrieveMerge's.
template <class V>
std::uint64_t merge_retrieved(const std::uint64_t* source, unsigned shards, std::uint64_t n,
                              std::uint64_t slots, const std::uint64_t* counts,
                              const V* answer_values, std::uint64_t* offsets_out,
                              cuda::device_buffer<V>& values_out, std::uint64_t* totals,
                              cudaStream_t st) {
  RetrieveMerge<V> merge(totals);
  merge.counts(source, shards, n, slots, counts, offsets_out, st);
  cuda::check(cudaStreamSynchronize(st), "waiting for the retrieve merge's counts");
  merge.values(answer_values, values_out, st);
  cuda::check(cudaStreamSynchronize(st), "waiting for the retrieve merge");
  return merge.total();
}

}  // namespace detail

// A batch of keys resident on one shard's device (retrieve_from_shards).
template <class K>
struct ShardQueries {
  const K* keys = nullptr;
  std::uint64_t n = 0;
};

// One shard's retrieved values, on its device, in its queries' order: the
// values of key i are values[offsets[i] .. offsets[i + 1]), total of them.
template <class V>
struct ShardAnswers {
  cuda::device_buffer<std::uint64_t> offsets;  // n + 1
  cuda::device_buffer<V> values;               // at least total
  std::uint64_t total = 0;
};

template <class Table, class Owner = HashOwner>
class DistributedTable {
 public:
  using key_type = typename Table::key_type;
  using value_type = typename Table::value_type;
  using K = key_type;
  using V = value_type;

  // make_shard(s) returns shard s's table; it is called with the shard's
  // device current. The owner must have as many shards as `devices`.
  template <class MakeShard>
  DistributedTable(std::vector<int> devices, Owner owner, MakeShard make_shard,
                   DistributedOptions options = {})
      : shards_(std::move(devices)),
        exchange_(make_exchange(shards_, options.exchange)),
        owner_(owner),
        mode_(options.mode),
        clock_(shards_),
        host_totals_(2 * shards_.size()) {
    if (owner_.num_shards() != shards_.size()) {
      throw std::invalid_argument("the owner policy has " + std::to_string(owner_.num_shards()) +
                                  " shards but the device list " +
                                  std::to_string(shards_.size()));
    }
    for (unsigned s = 0; s < shards_.size(); ++s) {
      DeviceGuard on(shards_.device(s));
      tables_.push_back(std::make_unique<Table>(make_shard(s)));
    }
    shards_.synchronize_all();
  }
  // Each shard's table is freed with its device current.
  ~DistributedTable() {
    for (unsigned s = 0; s < tables_.size(); ++s) {
      try {
        DeviceGuard on(shards_.device(s));
        tables_[s].reset();
      } catch (...) {
        tables_[s].reset();  // a destructor cannot report; free it anyway
      }
    }
  }
  // The exchange and clock refer to shards_: not copyable or movable.
  DistributedTable(const DistributedTable&) = delete;
  DistributedTable& operator=(const DistributedTable&) = delete;

  unsigned num_shards() const { return shards_.size(); }
  const ShardSet& shards() const { return shards_; }
  const Owner& owner() const { return owner_; }
  Mode mode() const { return mode_; }
  const char* exchange_name() const { return exchange_->name(); }
  Table& shard(unsigned s) { return *tables_[s]; }
  const Table& shard(unsigned s) const { return *tables_[s]; }

  // Phases of the last operation.
  const PhaseTimes& last_times() const { return last_; }

  // ------------------------------------------------------------------ insert

  // n pairs on shard 0's device: distributed mode sends each to its owner,
  // independent mode cuts the batch into one contiguous chunk per shard.
  void insert(const K* keys, const V* values, std::uint64_t n, cudaStream_t stream) {
    wait_for_caller(stream);
    std::vector<ShardBatch<K, V>> batches(num_shards());
    batches[0] = {keys, values, n};
    if (mode_ == Mode::independent) {
      insert_chunked(batches[0]);
    } else {
      insert_from_shards(batches);
    }
  }

  // One batch per shard, each on its shard's device (a shard may have none).
  // Distributed mode only: every shard splits its batch, then all-to-all.
  void insert_from_shards(const std::vector<ShardBatch<K, V>>& batches) {
    if (mode_ != Mode::distributed) {
      throw std::logic_error("insert_from_shards needs distributed mode (use insert_local)");
    }
    if (batches.size() != num_shards()) throw std::invalid_argument("one batch per shard expected");
    PhaseTimes t;
    const unsigned S = num_shards();
    std::vector<cuda::device_buffer<K>> split_keys(S);
    std::vector<cuda::device_buffer<V>> split_values(S);
    std::vector<const K*> keys(S);
    std::vector<const V*> values(S);
    std::vector<std::uint64_t> n(S);
    for (unsigned s = 0; s < S; ++s) {
      keys[s] = batches[s].keys;
      values[s] = batches[s].values;
      n[s] = batches[s].n;
    }
    clock_.begin();
    const auto rows = split_on_shards(keys, values, n, split_keys, &split_values, nullptr);
    t.partition_ms = clock_.end();
    receive_and_insert(rows, pointers(split_keys), pointers(split_values), t);
  }

  // Independent mode: inserts a batch on shard s's device into shard s's table.
  void insert_local(unsigned s, const K* keys, const V* values, std::uint64_t n,
                    cudaStream_t stream) {
    if (mode_ != Mode::independent) {
      throw std::logic_error("insert_local needs independent mode: in distributed mode a key "
                             "must go to its owner shard");
    }
    wait_for_caller(stream);
    PhaseTimes t;
    clock_.begin();
    {
      DeviceGuard on(shards_.device(s));
      tables_[s]->insert(keys, values, n, shards_.stream(s));
    }
    t.table_ms = clock_.end();
    finish(t);
  }

  // ------------------------------------------------------------------ queries

  // Single-value tables: values_out[i] = value of keys[i] or not_found_value;
  // status_out[i] (optional) is 0, key_not_found or invalid_key.
  void find(const K* keys, std::uint64_t n, V* values_out, V not_found_value,
            cudaStream_t stream, Status* status_out = nullptr)
    requires FindTable<Table>
  {
    wait_for_caller(stream);
    PhaseTimes t;
    Route route = route_queries(keys, n, t);
    const unsigned S = num_shards();
    std::vector<cuda::device_buffer<V>> shard_values(S);
    std::vector<cuda::device_buffer<Status>> shard_status(S);
    clock_.begin();
    for (unsigned d = 0; d < S; ++d) {
      DeviceGuard on(shards_.device(d));
      shard_values[d] = cuda::device_buffer<V>(route.received[d]);
      shard_status[d] = cuda::device_buffer<Status>(route.received[d]);
      tables_[d]->find(route.shard_keys[d].data(), route.received[d], shard_values[d].data(),
                       not_found_value, shards_.stream(d), shard_status[d].data());
    }
    t.table_ms = clock_.end();
    DeviceGuard home(shards_.device(0));
    cuda::device_buffer<V> answers(route.answer_slots());
    cuda::device_buffer<Status> answer_status(route.answer_slots());
    clock_.begin();
    const std::vector<Transfer> back = route.answers_back();
    exchange_->run_typed<V>(back, pointers(shard_values), at_shard0(answers.data()));
    exchange_->run_typed<Status>(back, pointers(shard_status), at_shard0(answer_status.data()));
    t.exchange_ms += clock_.end();
    clock_.begin();
    detail::merge_found(route.broadcast ? nullptr : route.source_index.data(), num_shards(), n,
                        answers.data(), answer_status.data(), values_out, status_out,
                        shards_.stream(0));
    t.merge_ms = clock_.end();
    finish(t);
  }

  // out[i] = whether keys[i] is stored (on its owner / on any shard).
  void contains(const K* keys, std::uint64_t n, bool* out, cudaStream_t stream) {
    wait_for_caller(stream);
    PhaseTimes t;
    Route route = route_queries(keys, n, t);
    const unsigned S = num_shards();
    std::vector<cuda::device_buffer<bool>> shard_found(S);
    clock_.begin();
    for (unsigned d = 0; d < S; ++d) {
      DeviceGuard on(shards_.device(d));
      shard_found[d] = cuda::device_buffer<bool>(route.received[d]);
      tables_[d]->contains(route.shard_keys[d].data(), route.received[d], shard_found[d].data(),
                           shards_.stream(d));
    }
    t.table_ms = clock_.end();
    DeviceGuard home(shards_.device(0));
    cuda::device_buffer<bool> answers(route.answer_slots());
    clock_.begin();
    exchange_->run_typed<bool>(route.answers_back(), pointers(shard_found), at_shard0(answers.data()));
    t.exchange_ms += clock_.end();
    clock_.begin();
    detail::merge_contains(route.broadcast ? nullptr : route.source_index.data(), num_shards(), n,
                           answers.data(), out, shards_.stream(0));
    t.merge_ms = clock_.end();
    finish(t);
  }

  // Multi-value tables: all values of every key. offsets_out (n + 1 entries,
  // shard 0's device) receives where each key's values are in values_out
  // (values of keys[i] = values_out[offsets[i] .. offsets[i+1])); values_out
  // is reallocated when smaller than the total, which is returned.
  std::uint64_t retrieve(const K* keys, std::uint64_t n, std::uint64_t* offsets_out,
                         cuda::device_buffer<V>& values_out, cudaStream_t stream)
    requires RetrieveTable<Table>
  {
    wait_for_caller(stream);
    PhaseTimes t;
    Route route = route_queries(keys, n, t);
    const unsigned S = num_shards();
    std::vector<cuda::device_buffer<std::uint64_t>> shard_counts(S), shard_offsets(S);
    std::vector<cuda::device_buffer<V>> shard_values(S);
    std::vector<std::vector<std::uint64_t>> value_rows(S, std::vector<std::uint64_t>(S, 0));
    clock_.begin();
    const std::vector<std::uint64_t> totals = retrieve_on_owners(
        pointers(route.shard_keys), route.received, shard_counts, shard_offsets, shard_values);
    for (unsigned d = 0; d < S; ++d) value_rows[d][0] = totals[d];
    t.table_ms = clock_.end();

    DeviceGuard home(shards_.device(0));
    const std::uint64_t slots = route.answer_slots();
    cuda::device_buffer<std::uint64_t> answer_counts(slots);
    clock_.begin();
    exchange_->run_typed<std::uint64_t>(route.answers_back(), pointers(shard_counts),
                                        at_shard0(answer_counts.data()));
    // Values: shard d sends its whole value array to shard 0, sizes first.
    const AllToAllPlan value_plan = plan_all_to_all(exchange_sizes(value_rows));
    t.exchange_ms += clock_.end();
    clock_.begin();
    cuda::device_buffer<V> answer_values(value_plan.recv_totals[0]);
    t.allocate_ms += clock_.end();
    clock_.begin();
    exchange_->run_typed<V>(value_plan.transfers, pointers(shard_values),
                            at_shard0(answer_values.data()));
    t.exchange_ms += clock_.end();

    clock_.begin();
    const std::uint64_t total = detail::merge_retrieved(
        route.broadcast ? nullptr : route.source_index.data(), num_shards(), n, slots,
        answer_counts.data(), answer_values.data(), offsets_out, values_out, host_totals_.data(),
        shards_.stream(0));
    t.merge_ms = clock_.end();
    finish(t);
    return total;
  }

  // Distributed mode: every shard asks for its own batch of keys (on its
  // device), the retrieval counterpart of insert_from_shards: each shard
  // splits its keys by owner, all-to-all, every owner counts and retrieves,
  // the counts and values travel back the way the keys came, and each asker
  // puts them in its input order on its own device, the shards side by side.
  // answers[s] holds shard s's; a key's values as retrieve() gives them.
  std::vector<ShardAnswers<V>> retrieve_from_shards(const std::vector<ShardQueries<K>>& queries)
    requires RetrieveTable<Table>
  {
    if (mode_ != Mode::distributed) {
      throw std::logic_error("retrieve_from_shards needs distributed mode (use retrieve)");
    }
    if (queries.size() != num_shards()) {
      throw std::invalid_argument("one batch of keys per shard expected");
    }
    PhaseTimes t;
    const unsigned S = num_shards();
    std::vector<const K*> keys(S);
    std::vector<std::uint64_t> asked(S);
    for (unsigned s = 0; s < S; ++s) {
      keys[s] = queries[s].keys;
      asked[s] = queries[s].n;
    }
    std::vector<cuda::device_buffer<K>> split_keys(S);
    std::vector<cuda::device_buffer<std::uint64_t>> source(S);
    clock_.begin();
    const auto rows = split_on_shards(keys, std::vector<const V*>(S, nullptr), asked, split_keys,
                                      nullptr, &source);
    t.partition_ms = clock_.end();

    // The keys to their owners.
    clock_.begin();
    const AllToAllPlan plan = plan_all_to_all(exchange_sizes(rows));
    t.exchange_ms = clock_.end();
    clock_.begin();
    std::vector<cuda::device_buffer<K>> owned(S);
    std::vector<cuda::device_buffer<std::uint64_t>> answer_counts(S);
    for (unsigned s = 0; s < S; ++s) {
      DeviceGuard on(shards_.device(s));
      owned[s] = cuda::device_buffer<K>(plan.recv_totals[s]);
      answer_counts[s] = cuda::device_buffer<std::uint64_t>(asked[s]);
    }
    t.allocate_ms += clock_.end();
    clock_.begin();
    exchange_->run_typed<K>(plan.transfers, pointers(split_keys), mutable_pointers(owned));
    t.exchange_ms += clock_.end();

    clock_.begin();
    std::vector<cuda::device_buffer<std::uint64_t>> counts(S), offsets(S);
    std::vector<cuda::device_buffer<V>> values(S);
    retrieve_on_owners(pointers(owned), plan.recv_totals, counts, offsets, values);
    t.table_ms = clock_.end();

    // Counts back along the keys' paths; values back, owner d's run for
    // asker s being the values of the keys s sent it (contiguous in d's
    // offsets).
    clock_.begin();
    exchange_->run_typed<std::uint64_t>(reverse(plan.transfers), pointers(counts),
                                        mutable_pointers(answer_counts));
    std::vector<std::vector<std::uint64_t>> value_rows(S, std::vector<std::uint64_t>(S, 0));
    for (const Transfer& k : plan.transfers) {
      if (k.count == 0) continue;
      DeviceGuard on(shards_.device(k.to));
      std::uint64_t ends[2];
      for (int e = 0; e < 2; ++e) {
        cuda::check(cudaMemcpy(&ends[e], offsets[k.to].data() + k.recv_offset + e * k.count,
                               sizeof(std::uint64_t), cudaMemcpyDeviceToHost),
                    "reading where an asker's values start");
      }
      value_rows[k.to][k.from] = ends[1] - ends[0];
    }
    const AllToAllPlan value_plan = plan_all_to_all(exchange_sizes(value_rows));
    t.exchange_ms += clock_.end();
    clock_.begin();
    std::vector<cuda::device_buffer<V>> answer_values(S);
    for (unsigned s = 0; s < S; ++s) {
      DeviceGuard on(shards_.device(s));
      answer_values[s] = cuda::device_buffer<V>(value_plan.recv_totals[s]);
    }
    t.allocate_ms += clock_.end();
    clock_.begin();
    exchange_->run_typed<V>(value_plan.transfers, pointers(values), mutable_pointers(answer_values));
    t.exchange_ms += clock_.end();

    // Every asker's merge, side by side.
    clock_.begin();
    std::vector<ShardAnswers<V>> answers(S);
    std::vector<detail::RetrieveMerge<V>> merges;
    for (unsigned s = 0; s < S; ++s) merges.emplace_back(host_totals_.data() + 2 * s);
    for (unsigned s = 0; s < S; ++s) {
      DeviceGuard on(shards_.device(s));
      answers[s].offsets = cuda::device_buffer<std::uint64_t>(asked[s] + 1);
      merges[s].counts(source[s].data(), S, asked[s], asked[s], answer_counts[s].data(),
                       answers[s].offsets.data(), shards_.stream(s));
    }
    shards_.synchronize_all();
    for (unsigned s = 0; s < S; ++s) {
      DeviceGuard on(shards_.device(s));
      merges[s].values(answer_values[s].data(), answers[s].values, shards_.stream(s));
      answers[s].total = merges[s].total();
    }
    t.merge_ms = clock_.end();
    finish(t);
    return answers;
  }

  // ------------------------------------------------------------------ state

  // OR of every shard's accumulated status.
  Status peek_status() const {
    Status all;
    for (unsigned s = 0; s < num_shards(); ++s) {
      DeviceGuard on(shards_.device(s));
      all |= tables_[s]->peek_status(shards_.stream(s));
    }
    return all;
  }
  Status pop_status() {
    Status all;
    for (unsigned s = 0; s < num_shards(); ++s) {
      DeviceGuard on(shards_.device(s));
      all |= tables_[s]->pop_status(shards_.stream(s));
    }
    return all;
  }
  // Stored pairs (single/multi-value) or values (bucket list), all shards.
  std::uint64_t size() const {
    std::uint64_t total = 0;
    for (unsigned s = 0; s < num_shards(); ++s) {
      DeviceGuard on(shards_.device(s));
      total += tables_[s]->size(shards_.stream(s));
    }
    return total;
  }
  std::uint64_t bytes() const {
    std::uint64_t total = 0;
    for (const auto& t : tables_) total += t->bytes();
    return total;
  }

 private:
  // Keys on their way to the shards, and where the answers come back.
  struct Route {
    std::uint64_t n = 0;
    bool broadcast = false;                   // independent mode: every shard gets all n
    cuda::device_buffer<K> split_keys;        // distributed: keys in owner order (shard 0)
    cuda::device_buffer<std::uint64_t> source_index;  // distributed: input position of split j
    std::vector<std::uint64_t> received;      // keys per shard
    std::vector<cuda::device_buffer<K>> shard_keys;   // on each shard's device

    // Answer j (shard 0's buffer): shard d's answers follow shard d-1's.
    std::uint64_t answer_slots() const {
      std::uint64_t total = 0;
      for (std::uint64_t r : received) total += r;
      return total;
    }
    std::vector<Transfer> answers_back() const {
      std::vector<Transfer> back;
      std::uint64_t at = 0;
      for (unsigned d = 0; d < received.size(); ++d) {
        back.push_back(Transfer{d, 0, 0, at, received[d]});
        at += received[d];
      }
      return back;
    }
  };

  void wait_for_caller(cudaStream_t stream) {
    DeviceGuard on(shards_.device(0));
    cuda::check(cudaStreamSynchronize(stream), "waiting for the caller's stream");
  }

  void finish(const PhaseTimes& t) { last_ = t; }

  template <class T>
  static std::vector<const T*> pointers(const std::vector<cuda::device_buffer<T>>& buffers) {
    std::vector<const T*> p;
    for (const auto& b : buffers) p.push_back(b.data());
    return p;
  }
  // Receive pointers where only shard 0 receives.
  template <class T>
  std::vector<T*> at_shard0(T* p) const {
    std::vector<T*> v(num_shards(), nullptr);
    v[0] = p;
    return v;
  }
  template <class T>
  static std::vector<T*> mutable_pointers(std::vector<cuda::device_buffer<T>>& buffers) {
    std::vector<T*> p;
    for (auto& b : buffers) p.push_back(b.data());
    return p;
  }

  // Every shard's batch (n[s] keys, and values where given) split by owner
  // into split_keys[s] (and split_values, and each one's input position in
  // source, where asked), allocated here on its device. The splits are
  // enqueued on every GPU before any is waited for (waiting in the loop ran
  // them one after another). Returns rows[s][d]: shard s's pairs for d.
  std::vector<std::vector<std::uint64_t>> split_on_shards(
      const std::vector<const K*>& keys, const std::vector<const V*>& values,
      const std::vector<std::uint64_t>& n, std::vector<cuda::device_buffer<K>>& split_keys,
      std::vector<cuda::device_buffer<V>>* split_values,
      std::vector<cuda::device_buffer<std::uint64_t>>* source) {
    const unsigned S = num_shards();
    std::vector<std::vector<std::uint64_t>> rows(S, std::vector<std::uint64_t>(S, 0));
    std::vector<std::optional<PendingSplit>> pending(S);
    for (unsigned s = 0; s < S; ++s) {
      if (n[s] == 0) continue;
      DeviceGuard on(shards_.device(s));
      split_keys[s] = cuda::device_buffer<K>(n[s]);
      V* values_out = nullptr;
      if (split_values != nullptr) {
        (*split_values)[s] = cuda::device_buffer<V>(n[s]);
        values_out = (*split_values)[s].data();
      }
      std::uint64_t* source_out = nullptr;
      if (source != nullptr) {
        (*source)[s] = cuda::device_buffer<std::uint64_t>(n[s]);
        source_out = (*source)[s].data();
      }
      pending[s].emplace(multisplit_async(keys[s], values[s], n[s], owner_, split_keys[s].data(),
                                          values_out, source_out, shards_.stream(s)));
    }
    for (unsigned s = 0; s < S; ++s) {
      if (!pending[s]) continue;
      DeviceGuard on(shards_.device(s));
      const SplitOffsets split = pending[s]->wait();
      for (unsigned d = 0; d < S; ++d) rows[s][d] = split.count(d);
      pending[s].reset();  // its scratch is freed on its own device
    }
    return rows;
  }

  // The owners' part of a retrieval: shard d counts the values of its m[d]
  // keys, scans them into offsets (the shards side by side) and retrieves
  // them; counts[d] (m[d]), offsets[d] (m[d] + 1) and values[d] are
  // allocated here on its device. Returns each shard's number of values.
  std::vector<std::uint64_t> retrieve_on_owners(
      const std::vector<const K*>& keys, const std::vector<std::uint64_t>& m,
      std::vector<cuda::device_buffer<std::uint64_t>>& counts,
      std::vector<cuda::device_buffer<std::uint64_t>>& offsets,
      std::vector<cuda::device_buffer<V>>& values) {
    const unsigned S = num_shards();
    std::vector<cuda::device_buffer<unsigned char>> scan_scratch(S);
    std::uint64_t* totals = host_totals_.data();
    for (unsigned d = 0; d < S; ++d) {
      DeviceGuard on(shards_.device(d));
      const cudaStream_t st = shards_.stream(d);
      counts[d] = cuda::device_buffer<std::uint64_t>(m[d]);
      offsets[d] = cuda::device_buffer<std::uint64_t>(m[d] + 1);
      tables_[d]->count(keys[d], m[d], counts[d].data(), st);
      if (m[d] > 0) {
        cuda::check(cudaMemcpyAsync(offsets[d].data(), counts[d].data(),
                                    m[d] * sizeof(std::uint64_t), cudaMemcpyDeviceToDevice, st),
                    "copying a shard's value counts");
      }
      counts_to_offsets_async(offsets[d].data(), m[d], st, scan_scratch[d], totals + d);
    }
    shards_.synchronize_all();
    for (unsigned d = 0; d < S; ++d) {
      DeviceGuard on(shards_.device(d));
      values[d] = cuda::device_buffer<V>(totals[d]);
      tables_[d]->retrieve(keys[d], m[d], offsets[d].data(), values[d].data(), shards_.stream(d));
    }
    shards_.synchronize_all();
    return std::vector<std::uint64_t>(totals, totals + S);
  }

  // rows[s][d] known to shard s -> the matrix as the receivers learn it: each
  // shard sends its row through the exchange (what separate processes must
  // do) and reads its column back.
  std::vector<std::vector<std::uint64_t>> exchange_sizes(
      const std::vector<std::vector<std::uint64_t>>& rows) {
    const unsigned S = num_shards();
    std::vector<cuda::device_buffer<std::uint64_t>> send(S), recv(S);
    std::vector<Transfer> unit;
    for (unsigned s = 0; s < S; ++s) {
      DeviceGuard on(shards_.device(s));
      send[s] = cuda::device_buffer<std::uint64_t>(S);
      recv[s] = cuda::device_buffer<std::uint64_t>(S);
      send[s].copy_from_host(rows[s].data(), S, shards_.stream(s));
      for (unsigned d = 0; d < S; ++d) unit.push_back(Transfer{s, d, d, s, 1});
    }
    exchange_->run_typed<std::uint64_t>(unit, pointers(send), mutable_pointers(recv));
    std::vector<std::vector<std::uint64_t>> matrix(S, std::vector<std::uint64_t>(S, 0));
    std::vector<std::uint64_t> column(S);
    for (unsigned d = 0; d < S; ++d) {
      DeviceGuard on(shards_.device(d));
      recv[d].copy_to_host(column.data(), S, shards_.stream(d));
      cuda::check(cudaStreamSynchronize(shards_.stream(d)), "reading exchanged sizes");
      for (unsigned s = 0; s < S; ++s) matrix[s][d] = column[s];
    }
    return matrix;
  }

  // Sends each shard's segments (rows[s][d] pairs from its split buffers) and
  // inserts what every shard received.
  void receive_and_insert(const std::vector<std::vector<std::uint64_t>>& rows,
                          const std::vector<const K*>& send_keys,
                          const std::vector<const V*>& send_values, PhaseTimes& t) {
    const unsigned S = num_shards();
    clock_.begin();
    const AllToAllPlan plan = plan_all_to_all(exchange_sizes(rows));
    t.exchange_ms = clock_.end();
    clock_.begin();
    std::vector<cuda::device_buffer<K>> keys(S);
    std::vector<cuda::device_buffer<V>> values(S);
    for (unsigned d = 0; d < S; ++d) {
      DeviceGuard on(shards_.device(d));
      keys[d] = cuda::device_buffer<K>(plan.recv_totals[d]);
      values[d] = cuda::device_buffer<V>(plan.recv_totals[d]);
    }
    t.allocate_ms += clock_.end();
    clock_.begin();
    exchange_->run_typed<K>(plan.transfers, send_keys, mutable_pointers(keys));
    exchange_->run_typed<V>(plan.transfers, send_values, mutable_pointers(values));
    t.exchange_ms += clock_.end();
    clock_.begin();
    for (unsigned d = 0; d < S; ++d) {
      DeviceGuard on(shards_.device(d));
      tables_[d]->insert(keys[d].data(), values[d].data(), plan.recv_totals[d], shards_.stream(d));
    }
    t.table_ms = clock_.end();
    finish(t);
  }

  // Independent mode: chunk d of the batch (equal contiguous pieces) to shard d.
  void insert_chunked(const ShardBatch<K, V>& batch) {
    const unsigned S = num_shards();
    PhaseTimes t;
    std::vector<std::vector<std::uint64_t>> rows(S, std::vector<std::uint64_t>(S, 0));
    for (unsigned d = 0; d < S; ++d) {
      rows[0][d] = batch.n * (d + 1) / S - batch.n * d / S;
    }
    std::vector<const K*> send_keys(S, nullptr);
    std::vector<const V*> send_values(S, nullptr);
    send_keys[0] = batch.keys;
    send_values[0] = batch.values;
    receive_and_insert(rows, send_keys, send_values, t);
  }

  // Splits (distributed) or broadcasts (independent) n keys from shard 0.
  Route route_queries(const K* keys, std::uint64_t n, PhaseTimes& t) {
    const unsigned S = num_shards();
    Route route;
    route.n = n;
    route.broadcast = mode_ == Mode::independent;
    std::vector<Transfer> out;
    std::vector<const K*> send(S, nullptr);
    clock_.begin();
    if (route.broadcast) {
      for (unsigned d = 0; d < S; ++d) out.push_back(Transfer{0, d, 0, 0, n});
      route.received.assign(S, n);
      send[0] = keys;
    } else {
      DeviceGuard on(shards_.device(0));
      route.split_keys = cuda::device_buffer<K>(n);
      route.source_index = cuda::device_buffer<std::uint64_t>(n);
      const SplitOffsets split =
          multisplit(keys, static_cast<const V*>(nullptr), n, owner_, route.split_keys.data(),
                     static_cast<V*>(nullptr), route.source_index.data(), shards_.stream(0));
      std::vector<std::vector<std::uint64_t>> rows(S, std::vector<std::uint64_t>(S, 0));
      for (unsigned d = 0; d < S; ++d) rows[0][d] = split.count(d);
      t.partition_ms = clock_.end();
      clock_.begin();
      const AllToAllPlan plan = plan_all_to_all(exchange_sizes(rows));
      out = plan.transfers;
      route.received = plan.recv_totals;
      send[0] = route.split_keys.data();
    }
    t.exchange_ms += clock_.end();
    clock_.begin();
    route.shard_keys.resize(S);
    for (unsigned d = 0; d < S; ++d) {
      DeviceGuard on(shards_.device(d));
      route.shard_keys[d] = cuda::device_buffer<K>(route.received[d]);
    }
    t.allocate_ms += clock_.end();
    clock_.begin();
    exchange_->run_typed<K>(out, send, mutable_pointers(route.shard_keys));
    t.exchange_ms += clock_.end();
    return route;
  }

  ShardSet shards_;
  std::unique_ptr<Exchange> exchange_;
  Owner owner_;
  Mode mode_;
  PhaseClock clock_;
  // Page-locked words the retrievals' scans return their totals to (two per
  // shard), allocated once: pinned allocations cost more than the scans.
  cuda::pinned_buffer<std::uint64_t> host_totals_;
  std::vector<std::unique_ptr<Table>> tables_;
  PhaseTimes last_;
};

}  // namespace metawarp::tables::distributed
