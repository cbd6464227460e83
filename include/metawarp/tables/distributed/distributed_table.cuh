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
//
// Memory: the tables are the shards' own (cudaMalloc at construction); every
// buffer an operation needs in between (splits, what the exchange receives,
// counts, offsets, scan scratch) comes from the devices' memory pools
// (cuda/memory_pool.hpp) in the shards' stream order, and the words the host
// reads back are page-locked words of the table, so a warmed operation
// allocates nothing from the driver and no shard waits for another's
// allocation. The caller's outputs (retrieve's values_out,
// retrieve_from_shards' answers) are reused when large enough.
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
#include "metawarp/cuda/pooled_buffer.hpp"
#include "metawarp/tables/distributed/exchange.cuh"
#include "metawarp/tables/distributed/make_exchange.cuh"
#include "metawarp/tables/distributed/merge.cuh"
#include "metawarp/tables/distributed/multisplit.cuh"
#include "metawarp/tables/distributed/owner.hpp"
#include "metawarp/tables/distributed/phase_times.cuh"
#include "metawarp/tables/distributed/shard_set.cuh"
#include "metawarp/tables/distributed/size_exchange.cuh"
#include "metawarp/tables/distributed/transfer.hpp"
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


// A batch of keys resident on one shard's device (retrieve_from_shards).
template <class K>
struct ShardQueries {
  const K* keys = nullptr;
  std::uint64_t n = 0;
};

// One shard's retrieved values, on its device, in its queries' order: the
// values of key i are values[offsets[i] .. offsets[i + 1]), total of them.
// The buffers are the caller's (plain device memory, freed whenever the
// caller likes): a retrieval into answers of an earlier one reuses them where
// they are on the right device and large enough.
template <class V>
struct ShardAnswers {
  cuda::device_buffer<std::uint64_t> offsets;  // at least n + 1
  cuda::device_buffer<V> values;               // at least total
  std::uint64_t total = 0;
  int device = -1;  // where offsets and values live (-1: nowhere yet)
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
        shard_timer_(shards_),
        sizes_(shards_),
        host_totals_(2 * shards_.size()),
        host_splits_(std::size_t(shards_.size()) * (shards_.size() + 1)),
        host_runs_(2 * std::size_t(shards_.size()) * shards_.size()) {
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
    std::vector<cuda::pooled_buffer<K>> split_keys(S);
    std::vector<cuda::pooled_buffer<V>> split_values(S);
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
    std::vector<cuda::pooled_buffer<V>> shard_values(S);
    std::vector<cuda::pooled_buffer<Status>> shard_status(S);
    // Where the answers come back to; made before the table phase ends (every
    // stream waited for), as the exchange's copies may write them from others.
    auto answers = temporary<V>(0, route.answer_slots());
    auto answer_status = temporary<Status>(0, route.answer_slots());
    clock_.begin();
    for (unsigned d = 0; d < S; ++d) {
      DeviceGuard on(shards_.device(d));
      const cudaStream_t st = shards_.stream(d);
      shard_values[d] = cuda::make_pooled<V>(route.received[d], st);
      shard_status[d] = cuda::make_pooled<Status>(route.received[d], st);
      tables_[d]->find(route.shard_keys[d].data(), route.received[d], shard_values[d].data(),
                       not_found_value, st, shard_status[d].data());
    }
    t.table_ms = clock_.end();
    DeviceGuard home(shards_.device(0));
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
    std::vector<cuda::pooled_buffer<bool>> shard_found(S);
    auto answers = temporary<bool>(0, route.answer_slots());  // before the phase's end, as find's
    clock_.begin();
    for (unsigned d = 0; d < S; ++d) {
      DeviceGuard on(shards_.device(d));
      shard_found[d] = cuda::make_pooled<bool>(route.received[d], shards_.stream(d));
      tables_[d]->contains(route.shard_keys[d].data(), route.received[d], shard_found[d].data(),
                           shards_.stream(d));
    }
    t.table_ms = clock_.end();
    DeviceGuard home(shards_.device(0));
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
    std::vector<cuda::pooled_buffer<std::uint64_t>> shard_counts(S), shard_offsets(S);
    std::vector<cuda::pooled_buffer<V>> shard_values(S);
    SizeMatrix value_rows(S, std::vector<std::uint64_t>(S, 0));
    const std::uint64_t slots = route.answer_slots();
    auto answer_counts = temporary<std::uint64_t>(0, slots);  // before the phase's end, as find's
    clock_.begin();
    const std::vector<std::uint64_t> totals = retrieve_on_owners(
        pointers(route.shard_keys), route.received, shard_counts, shard_offsets, shard_values);
    for (unsigned d = 0; d < S; ++d) value_rows[d][0] = totals[d];
    t.table_ms = clock_.end();
    t.shard_table_ms = shard_timer_.ms();

    DeviceGuard home(shards_.device(0));
    clock_.begin();
    exchange_->run_typed<std::uint64_t>(route.answers_back(), pointers(shard_counts),
                                        at_shard0(answer_counts.data()));
    // Values: shard d sends its whole value array to shard 0, sizes first.
    const AllToAllPlan value_plan = plan_all_to_all(sizes_.run(*exchange_, value_rows));
    t.exchange_ms += clock_.end();
    clock_.begin();
    auto answer_values = temporary<V>(0, value_plan.recv_totals[0]);
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
  // answers[s] holds shard s's (resized to one per shard; buffers reused, see
  // ShardAnswers); a key's values as retrieve() gives them.
  void retrieve_from_shards(const std::vector<ShardQueries<K>>& queries,
                            std::vector<ShardAnswers<V>>& answers)
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
    answers.resize(S);
    std::vector<const K*> keys(S);
    std::vector<std::uint64_t> asked(S);
    for (unsigned s = 0; s < S; ++s) {
      keys[s] = queries[s].keys;
      asked[s] = queries[s].n;
    }
    std::vector<cuda::pooled_buffer<K>> split_keys(S);
    std::vector<cuda::pooled_buffer<std::uint64_t>> source(S);
    clock_.begin();
    const auto rows = split_on_shards(keys, std::vector<const V*>(S, nullptr), asked, split_keys,
                                      nullptr, &source);
    t.partition_ms = clock_.end();

    // The keys to their owners.
    clock_.begin();
    const AllToAllPlan plan = plan_all_to_all(sizes_.run(*exchange_, rows));
    t.exchange_ms = clock_.end();
    clock_.begin();
    std::vector<cuda::pooled_buffer<K>> owned(S);
    std::vector<cuda::pooled_buffer<std::uint64_t>> answer_counts(S);
    for (unsigned s = 0; s < S; ++s) {
      owned[s] = temporary<K>(s, plan.recv_totals[s]);
      answer_counts[s] = temporary<std::uint64_t>(s, asked[s]);
    }
    t.allocate_ms += clock_.end();
    clock_.begin();
    exchange_->run_typed<K>(plan.transfers, pointers(split_keys), mutable_pointers(owned));
    t.exchange_ms += clock_.end();

    clock_.begin();
    std::vector<cuda::pooled_buffer<std::uint64_t>> counts(S), offsets(S);
    std::vector<cuda::pooled_buffer<V>> values(S);
    retrieve_on_owners(pointers(owned), plan.recv_totals, counts, offsets, values);
    t.table_ms = clock_.end();
    t.shard_table_ms = shard_timer_.ms();

    // Counts back along the keys' paths; values back, owner d's run for
    // asker s being the values of the keys s sent it (contiguous in d's
    // offsets). The runs' ends are read on the owners' streams, enqueued
    // before the counts' exchange, which waits for every stream.
    clock_.begin();
    read_run_ends(plan.transfers, offsets);
    exchange_->run_typed<std::uint64_t>(reverse(plan.transfers), pointers(counts),
                                        mutable_pointers(answer_counts));
    const AllToAllPlan value_plan = plan_all_to_all(sizes_.run(*exchange_, run_sizes(plan.transfers)));
    t.exchange_ms += clock_.end();
    clock_.begin();
    std::vector<cuda::pooled_buffer<V>> answer_values(S);
    for (unsigned s = 0; s < S; ++s) answer_values[s] = temporary<V>(s, value_plan.recv_totals[s]);
    t.allocate_ms += clock_.end();
    clock_.begin();
    exchange_->run_typed<V>(value_plan.transfers, pointers(values), mutable_pointers(answer_values));
    t.exchange_ms += clock_.end();

    // Every asker's merge, side by side.
    clock_.begin();
    std::vector<detail::RetrieveMerge<V>> merges;
    merges.reserve(S);
    for (unsigned s = 0; s < S; ++s) merges.emplace_back(host_totals_.data() + 2 * s);
    for (unsigned s = 0; s < S; ++s) {
      DeviceGuard on(shards_.device(s));
      prepare_answers(answers[s], s, asked[s] + 1);
      merges[s].counts(source[s].data(), S, asked[s], asked[s], answer_counts[s].data(),
                       answers[s].offsets.data(), shards_.stream(s));
    }
    shards_.synchronize_all();
    for (unsigned s = 0; s < S; ++s) {  // a first call's allocations before any merge runs
      if (answers[s].values.size() >= merges[s].total()) continue;
      DeviceGuard on(shards_.device(s));
      answers[s].values = {};
      answers[s].values = cuda::device_buffer<V>(merges[s].total());
    }
    for (unsigned s = 0; s < S; ++s) {
      DeviceGuard on(shards_.device(s));
      merges[s].values(answer_values[s].data(), answers[s].values, shards_.stream(s));
      answers[s].total = merges[s].total();
    }
    t.merge_ms = clock_.end();
    finish(t);
  }

  // The same into new answers.
  std::vector<ShardAnswers<V>> retrieve_from_shards(const std::vector<ShardQueries<K>>& queries)
    requires RetrieveTable<Table>
  {
    std::vector<ShardAnswers<V>> answers;
    retrieve_from_shards(queries, answers);
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
    cuda::pooled_buffer<K> split_keys;        // distributed: keys in owner order (shard 0)
    cuda::pooled_buffer<std::uint64_t> source_index;  // distributed: input position of split j
    std::vector<std::uint64_t> received;      // keys per shard
    std::vector<cuda::pooled_buffer<K>> shard_keys;   // on each shard's device

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

  // n elements of scratch on shard s's device, in its stream's order. Another
  // stream may use it once a phase has ended (all streams waited for).
  template <class T>
  cuda::pooled_buffer<T> temporary(unsigned s, std::uint64_t n) const {
    DeviceGuard on(shards_.device(s));
    return cuda::make_pooled<T>(n, shards_.stream(s));
  }

  template <class T, class Memory>
  static std::vector<const T*> pointers(const std::vector<cuda::device_buffer<T, Memory>>& buffers) {
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
  template <class T, class Memory>
  static std::vector<T*> mutable_pointers(std::vector<cuda::device_buffer<T, Memory>>& buffers) {
    std::vector<T*> p;
    for (auto& b : buffers) p.push_back(b.data());
    return p;
  }

  // Every shard's batch (n[s] keys, and values where given) split by owner
  // into split_keys[s] (and split_values, and each one's input position in
  // source, where asked), allocated here on its device. The splits are
  // enqueued on every GPU before any is waited for (waiting in the loop ran
  // them one after another). Returns rows[s][d]: shard s's pairs for d.
  SizeMatrix split_on_shards(const std::vector<const K*>& keys, const std::vector<const V*>& values,
                             const std::vector<std::uint64_t>& n,
                             std::vector<cuda::pooled_buffer<K>>& split_keys,
                             std::vector<cuda::pooled_buffer<V>>* split_values,
                             std::vector<cuda::pooled_buffer<std::uint64_t>>* source) {
    const unsigned S = num_shards();
    SizeMatrix rows(S, std::vector<std::uint64_t>(S, 0));
    std::vector<std::optional<PendingSplit>> pending(S);
    for (unsigned s = 0; s < S; ++s) {
      if (n[s] == 0) continue;
      DeviceGuard on(shards_.device(s));
      const cudaStream_t st = shards_.stream(s);
      split_keys[s] = cuda::make_pooled<K>(n[s], st);
      V* values_out = nullptr;
      if (split_values != nullptr) {
        (*split_values)[s] = cuda::make_pooled<V>(n[s], st);
        values_out = (*split_values)[s].data();
      }
      std::uint64_t* source_out = nullptr;
      if (source != nullptr) {
        (*source)[s] = cuda::make_pooled<std::uint64_t>(n[s], st);
        source_out = (*source)[s].data();
      }
      pending[s].emplace(multisplit_async(keys[s], values[s], n[s], owner_, split_keys[s].data(),
                                          values_out, source_out, split_offsets(s), st));
    }
    for (unsigned s = 0; s < S; ++s) {
      if (!pending[s]) continue;
      DeviceGuard on(shards_.device(s));
      const SplitOffsets split = pending[s]->wait();
      for (unsigned d = 0; d < S; ++d) rows[s][d] = split.count(d);
      pending[s].reset();  // its scratch goes back to its device's pool
    }
    return rows;
  }

  // Shard s's page-locked words for its split's offsets (S + 1).
  std::uint64_t* split_offsets(unsigned s) {
    return host_splits_.data() + std::size_t(s) * (num_shards() + 1);
  }

  // The owners' part of a retrieval: shard d counts the values of its m[d]
  // keys, scans them into offsets (the shards side by side) and retrieves
  // them; counts[d] (m[d]), offsets[d] (m[d] + 1) and values[d] are
  // allocated here on its device. Returns each shard's number of values.
  std::vector<std::uint64_t> retrieve_on_owners(
      const std::vector<const K*>& keys, const std::vector<std::uint64_t>& m,
      std::vector<cuda::pooled_buffer<std::uint64_t>>& counts,
      std::vector<cuda::pooled_buffer<std::uint64_t>>& offsets,
      std::vector<cuda::pooled_buffer<V>>& values) {
    const unsigned S = num_shards();
    std::vector<cuda::pooled_buffer<unsigned char>> scan_scratch(S);
    std::uint64_t* totals = host_totals_.data();
    shard_timer_.reset();
    for (unsigned d = 0; d < S; ++d) {
      DeviceGuard on(shards_.device(d));
      const cudaStream_t st = shards_.stream(d);
      counts[d] = cuda::make_pooled<std::uint64_t>(m[d], st);
      offsets[d] = cuda::make_pooled<std::uint64_t>(m[d] + 1, st);
      shard_timer_.begin(d, st);
      tables_[d]->count(keys[d], m[d], counts[d].data(), st);
      if (m[d] > 0) {
        cuda::check(cudaMemcpyAsync(offsets[d].data(), counts[d].data(),
                                    m[d] * sizeof(std::uint64_t), cudaMemcpyDeviceToDevice, st),
                    "copying a shard's value counts");
      }
      counts_to_offsets_async(offsets[d].data(), m[d], st, scan_scratch[d], totals + d);
      shard_timer_.end(d, st);
    }
    shards_.synchronize_all();
    for (unsigned d = 0; d < S; ++d) {
      DeviceGuard on(shards_.device(d));
      const cudaStream_t st = shards_.stream(d);
      values[d] = cuda::make_pooled<V>(totals[d], st);
      shard_timer_.begin(d, st);
      tables_[d]->retrieve(keys[d], m[d], offsets[d].data(), values[d].data(), st);
      shard_timer_.end(d, st);
    }
    shards_.synchronize_all();
    return std::vector<std::uint64_t>(totals, totals + S);
  }

  // Where each asker's run of values starts and ends on its owner: for every
  // transfer of keys (asker k.from -> owner k.to), the owner's offsets at
  // the run's first key and one past its last, copied to page-locked words
  // on the owner's stream (enqueued only: read by run_sizes once the streams
  // have been waited for).
  void read_run_ends(const std::vector<Transfer>& transfers,
                     const std::vector<cuda::pooled_buffer<std::uint64_t>>& offsets) {
    for (const Transfer& k : transfers) {
      if (k.count == 0) continue;
      DeviceGuard on(shards_.device(k.to));
      std::uint64_t* ends = run_ends(k);
      const std::uint64_t* first = offsets[k.to].data() + k.recv_offset;
      for (int e = 0; e < 2; ++e) {
        cuda::check(cudaMemcpyAsync(ends + e, first + e * k.count, sizeof(std::uint64_t),
                                    cudaMemcpyDeviceToHost, shards_.stream(k.to)),
                    "reading where an asker's values start");
      }
    }
  }
  // rows[d][s]: values owner d sends back to asker s (read_run_ends, waited for).
  SizeMatrix run_sizes(const std::vector<Transfer>& transfers) {
    const unsigned S = num_shards();
    SizeMatrix rows(S, std::vector<std::uint64_t>(S, 0));
    for (const Transfer& k : transfers) {
      if (k.count == 0) continue;
      const std::uint64_t* ends = run_ends(k);
      rows[k.to][k.from] = ends[1] - ends[0];
    }
    return rows;
  }
  std::uint64_t* run_ends(const Transfer& k) {
    return host_runs_.data() + 2 * (std::size_t(k.to) * num_shards() + k.from);
  }

  // Shard s's answers on its device with room for `offsets` offsets; buffers
  // on another device (answers from another table) are dropped.
  void prepare_answers(ShardAnswers<V>& answers, unsigned s, std::uint64_t offsets) {
    if (answers.device != shards_.device(s)) {
      answers.offsets = {};
      answers.values = {};
      answers.device = shards_.device(s);
    }
    if (answers.offsets.size() < offsets) {
      answers.offsets = {};
      answers.offsets = cuda::device_buffer<std::uint64_t>(offsets);
    }
    answers.total = 0;
  }

  // Waits for the table streams when it goes out of scope, an exception
  // included: declared after the pooled buffers that table kernels on those
  // streams read, so that none goes back to its pool (in its own stream's
  // order) while a kernel may still read it.
  class TableStreamsDone {
   public:
    explicit TableStreamsDone(const ShardSet& shards) : shards_(shards) {}
    ~TableStreamsDone() { shards_.synchronize_tables_noexcept(); }
    TableStreamsDone(const TableStreamsDone&) = delete;
    TableStreamsDone& operator=(const TableStreamsDone&) = delete;

   private:
    const ShardSet& shards_;
  };

  // Sends each shard's segments (rows[s][d] pairs from its split buffers)
  // and inserts what every shard received. A shard's segment to itself does
  // not travel: its table inserts it from the send buffer, on its table
  // stream, while the exchange moves the other segments between the GPUs
  // (issue 28: at 2 GPUs the copy and the transfers took 4.1 ms before the
  // table started); what arrived follows on the same stream. The exchange's
  // kernels are enqueued before the inserts, and their stream has the higher
  // priority, so they are not scheduled behind the insert's blocks.
  // exchange_ms ends when the last segment has arrived, table_ms is the
  // table work left after it (the phases add up to the insert's time).
  void receive_and_insert(const SizeMatrix& rows, const std::vector<const K*>& send_keys,
                          const std::vector<const V*>& send_values, PhaseTimes& t) {
    const unsigned S = num_shards();
    clock_.begin();
    const AllToAllPlan plan = plan_all_to_all(sizes_.run(*exchange_, rows));
    t.exchange_ms = clock_.end();
    const AllToAllPlan remote = between_shards(plan);
    clock_.begin();
    std::vector<cuda::pooled_buffer<K>> keys(S);
    std::vector<cuda::pooled_buffer<V>> values(S);
    for (unsigned d = 0; d < S; ++d) {
      keys[d] = temporary<K>(d, remote.recv_totals[d]);
      values[d] = temporary<V>(d, remote.recv_totals[d]);
    }
    t.allocate_ms += clock_.end();
    const TableStreamsDone tables_done(shards_);
    shard_timer_.reset();
    clock_.begin();
    exchange_->enqueue_typed<K>(remote.transfers, send_keys, mutable_pointers(keys));
    exchange_->enqueue_typed<V>(remote.transfers, send_values, mutable_pointers(values));
    for (unsigned d = 0; d < S; ++d) {
      const Transfer own = own_segment(plan, d);
      if (own.count == 0) continue;
      DeviceGuard on(shards_.device(d));
      const cudaStream_t st = shards_.table_stream(d);
      shard_timer_.begin(d, st);
      tables_[d]->insert(send_keys[d] + own.send_offset, send_values[d] + own.send_offset,
                         own.count, st);
      shard_timer_.end(d, st);
    }
    exchange_->wait();
    t.exchange_ms += clock_.end_of_exchange();
    clock_.begin();
    for (unsigned d = 0; d < S; ++d) {
      if (remote.recv_totals[d] == 0) continue;
      DeviceGuard on(shards_.device(d));
      const cudaStream_t st = shards_.table_stream(d);
      shard_timer_.begin(d, st);
      tables_[d]->insert(keys[d].data(), values[d].data(), remote.recv_totals[d], st);
      shard_timer_.end(d, st);
    }
    t.table_ms = clock_.end();
    t.shard_table_ms = shard_timer_.ms();
    finish(t);
  }

  // Independent mode: chunk d of the batch (equal contiguous pieces) to shard d.
  void insert_chunked(const ShardBatch<K, V>& batch) {
    const unsigned S = num_shards();
    PhaseTimes t;
    SizeMatrix rows(S, std::vector<std::uint64_t>(S, 0));
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
      const cudaStream_t st = shards_.stream(0);
      route.split_keys = cuda::make_pooled<K>(n, st);
      route.source_index = cuda::make_pooled<std::uint64_t>(n, st);
      const SplitOffsets split =
          multisplit_async(keys, static_cast<const V*>(nullptr), n, owner_,
                           route.split_keys.data(), static_cast<V*>(nullptr),
                           route.source_index.data(), split_offsets(0), st)
              .wait();
      SizeMatrix rows(S, std::vector<std::uint64_t>(S, 0));
      for (unsigned d = 0; d < S; ++d) rows[0][d] = split.count(d);
      t.partition_ms = clock_.end();
      clock_.begin();
      const AllToAllPlan plan = plan_all_to_all(sizes_.run(*exchange_, rows));
      out = plan.transfers;
      route.received = plan.recv_totals;
      send[0] = route.split_keys.data();
    }
    t.exchange_ms += clock_.end();
    clock_.begin();
    route.shard_keys.resize(S);
    for (unsigned d = 0; d < S; ++d) route.shard_keys[d] = temporary<K>(d, route.received[d]);
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
  ShardTimer shard_timer_;
  SizeExchange sizes_;
  // Page-locked words the host reads back without blocking a stream,
  // allocated once (a pinned allocation costs more than a small scan): the
  // retrievals' scan totals (two per shard), every shard's split offsets
  // (S + 1 each) and the ends of every (owner, asker) run of values (two).
  cuda::pinned_buffer<std::uint64_t> host_totals_, host_splits_, host_runs_;
  std::vector<std::unique_ptr<Table>> tables_;
  PhaseTimes last_;
};

}  // namespace metawarp::tables::distributed
