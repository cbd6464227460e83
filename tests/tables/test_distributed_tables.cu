// Distributed tables on one GPU: 1, 2, 3, 4 and 8 shards sharing device 0
// run the real multisplit and exchange (local copies) and must answer exactly
// like std::unordered_map / std::unordered_multimap; every key lives on its
// owner shard only; empty shards, skewed batches (one shard gets everything),
// a full shard (error status, no hang) and the independent mode.
#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "catch.hpp"
#include "gpu_test_support.cuh"
#include "metawarp/tables/bucket_list_table.cuh"
#include "metawarp/tables/distributed/distributed_table.cuh"
#include "metawarp/cuda/pooled_buffer.hpp"
#include "metawarp/cuda/stream.hpp"
#include "metawarp/tables/distributed/multisplit.cuh"
#include "metawarp/tables/multi_value_table.cuh"
#include "metawarp/tables/single_value_table.cuh"

namespace mwc = metawarp::cuda;
using namespace metawarp::tables;
using namespace metawarp::tables::distributed;
using namespace metawarp::tables::testing;
using std::uint32_t;
using std::uint64_t;

namespace {

using SingleTable = SingleValueHashTable<uint32_t, uint32_t>;
using MultiTable = MultiValueHashTable<uint64_t, uint64_t>;
using BucketTable = BucketListHashTable<uint32_t, uint32_t>;

const std::vector<unsigned> shard_counts = {1, 2, 3, 4, 8};

std::vector<int> one_gpu(unsigned shards) { return std::vector<int>(shards, 0); }

// Keys that `owner` gives to shard `target` only.
template <class K, class Owner>
std::vector<K> keys_owned_by(const Owner& owner, unsigned target, std::size_t n, uint64_t seed) {
  std::vector<K> out;
  std::mt19937_64 rng(seed);
  while (out.size() < n) {
    const K k = K(rng());
    if (KeySentinels<K>::is_valid(k) && owner(k) == target) out.push_back(k);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Values of each query from (offsets, values), sorted per key.
template <class V>
std::vector<std::vector<V>> per_key(const std::vector<uint64_t>& offsets, const std::vector<V>& values) {
  std::vector<std::vector<V>> out(offsets.size() - 1);
  for (std::size_t i = 0; i + 1 < offsets.size(); ++i) {
    out[i].assign(values.begin() + offsets[i], values.begin() + offsets[i + 1]);
    std::sort(out[i].begin(), out[i].end());
  }
  return out;
}

// Checks a multi-value distributed table against the reference for `queries`.
template <class Dist, class K, class V>
void check_retrieve(Dist& table, const std::vector<K>& queries,
                    const std::unordered_multimap<K, V>& ref) {
  auto d_queries = to_device(queries);
  mwc::device_buffer<uint64_t> d_offsets(queries.size() + 1);
  mwc::device_buffer<V> d_values;
  const uint64_t total = table.retrieve(d_queries.data(), queries.size(), d_offsets.data(), d_values, test_stream);
  const auto offsets = to_host(d_offsets, queries.size() + 1);
  REQUIRE(offsets.back() == total);
  const auto got = per_key(offsets, to_host(d_values, total));
  uint64_t expected_total = 0;
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const auto want = expected_values(ref, queries[i]);
    expected_total += want.size();
    REQUIRE(got[i] == want);
  }
  CHECK(total == expected_total);
}

// Each shard holds exactly the keys its owner policy gives it.
template <class Dist, class K>
void check_ownership(Dist& table, const std::vector<K>& keys) {
  auto d_keys = to_device(keys);
  mwc::device_buffer<bool> d_found(keys.size());
  for (unsigned s = 0; s < table.num_shards(); ++s) {
    table.shard(s).contains(d_keys.data(), keys.size(), d_found.data(), test_stream);
    const auto found = to_host(d_found, keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      REQUIRE(found[i] == (table.owner()(keys[i]) == s));
    }
  }
}

}  // namespace

TEST_CASE("multisplit is a stable partition by owner") {
  for (unsigned shards : {1u, 3u, 8u, 64u}) {
    const HashOwner owner(shards);
    // Odd size: tiles and chunks end mid-way; repeated keys keep their order.
    const auto keys = keys_with_repeats<uint64_t>(100003, 5000, shards);
    std::vector<uint32_t> values(keys.size());
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = uint32_t(i);
    auto d_keys = to_device(keys);
    auto d_values = to_device(values);
    mwc::device_buffer<uint64_t> d_out_keys(keys.size()), d_source(keys.size());
    mwc::device_buffer<uint32_t> d_out_values(keys.size());
    const SplitOffsets split = multisplit(d_keys.data(), d_values.data(), keys.size(), owner,
                                          d_out_keys.data(), d_out_values.data(), d_source.data(),
                                          nullptr);
    // Host reference: stable partition by owner.
    std::vector<std::size_t> order(keys.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return owner(keys[a]) < owner(keys[b]); });
    const auto out_keys = to_host(d_out_keys, keys.size());
    const auto out_values = to_host(d_out_values, keys.size());
    const auto source = to_host(d_source, keys.size());
    REQUIRE(split.offsets.size() == shards + 1);
    CHECK(split.offsets.front() == 0);
    CHECK(split.offsets.back() == keys.size());
    for (std::size_t j = 0; j < order.size(); ++j) {
      REQUIRE(source[j] == order[j]);
      REQUIRE(out_keys[j] == keys[order[j]]);
      REQUIRE(out_values[j] == values[order[j]]);
    }
    for (unsigned s = 0; s < shards; ++s) {
      for (uint64_t j = split.offsets[s]; j < split.offsets[s + 1]; ++j) {
        REQUIRE(owner(out_keys[j]) == s);
      }
    }
  }
}

TEST_CASE("owner policies") {
  const HashOwner hash(4);
  const RangeOwner range = RangeOwner::even(4, uint64_t(1) << 32);
  CHECK(range(0) == 0);
  CHECK(range((uint64_t(1) << 30) - 1) == 0);
  CHECK(range(uint64_t(1) << 30) == 1);
  CHECK(range(uint64_t(3) << 30) == 3);
  CHECK(range(~uint64_t(0)) == 3);  // past the range: last shard
  std::vector<unsigned> per_shard(4, 0);
  for (uint64_t k = 0; k < 40000; ++k) ++per_shard[hash(k)];
  for (unsigned c : per_shard) CHECK((c > 9000 && c < 11000));  // consecutive keys spread
  CHECK_THROWS_AS(RangeOwner({0, 5, 5}), std::invalid_argument);
  CHECK_THROWS_AS(RangeOwner({1, 5}), std::invalid_argument);
  CHECK_THROWS_AS(HashOwner(0), std::invalid_argument);
  CHECK_THROWS_AS(HashOwner(max_shards + 1), std::invalid_argument);
}

TEST_CASE("single-value distributed table matches unordered_map") {
  const auto keys = distinct_keys<uint32_t>(150000, 11);
  const auto values = random_values<uint32_t>(keys.size(), 12);
  std::unordered_map<uint32_t, uint32_t> ref;
  for (std::size_t i = 0; i < keys.size(); ++i) ref.emplace(keys[i], values[i]);
  const auto absent = distinct_keys<uint32_t>(20000, 13);
  std::vector<uint32_t> queries = keys;
  for (auto k : absent) if (!ref.count(k)) queries.push_back(k);
  std::shuffle(queries.begin(), queries.end(), std::mt19937_64(14));

  for (unsigned shards : shard_counts) {
    INFO("shards: " << shards);
    DistributedTable<SingleTable> table(one_gpu(shards), HashOwner(shards), [&](unsigned) {
      return SingleTable(keys.size() * 2 / shards + 1000, {}, test_stream);
    });
    CHECK(std::string(table.exchange_name()) == "local-copy");
    auto d_keys = to_device(keys);
    auto d_values = to_device(values);
    // Three batches: the tables are reused across operations.
    const std::size_t third = keys.size() / 3;
    table.insert(d_keys.data(), d_values.data(), third, test_stream);
    table.insert(d_keys.data() + third, d_values.data() + third, third, test_stream);
    table.insert(d_keys.data() + 2 * third, d_values.data() + 2 * third, keys.size() - 2 * third, test_stream);
    CHECK(table.peek_status().ok());
    CHECK(table.size() == keys.size());

    auto d_queries = to_device(queries);
    mwc::device_buffer<uint32_t> d_found(queries.size());
    mwc::device_buffer<Status> d_status(queries.size());
    mwc::device_buffer<bool> d_contains(queries.size());
    const uint32_t missing = 0xdeadbeefu;
    table.find(d_queries.data(), queries.size(), d_found.data(), missing, nullptr, d_status.data());
    table.contains(d_queries.data(), queries.size(), d_contains.data(), test_stream);
    const auto found = to_host(d_found, queries.size());
    const auto status = to_host(d_status, queries.size());
    const auto contains = to_host(d_contains, queries.size());
    for (std::size_t i = 0; i < queries.size(); ++i) {
      const auto it = ref.find(queries[i]);
      const bool present = it != ref.end();
      REQUIRE(contains[i] == present);
      REQUIRE(found[i] == (present ? it->second : missing));
      REQUIRE(status[i] == Status(present ? 0u : Status::key_not_found));
    }
    check_ownership(table, keys);

    // A duplicate insert warns, keeps the first value, on the owner shard only.
    table.insert(d_keys.data(), d_values.data(), 10, test_stream);
    const Status dup = table.pop_status();
    CHECK(dup.has(Status::duplicate_key));
    CHECK(!dup.has_error());
    CHECK(table.size() == keys.size());
  }
}

TEST_CASE("multi-value distributed table matches unordered_multimap") {
  const auto keys = keys_with_repeats<uint64_t>(120000, 30000, 21);
  const auto values = random_values<uint64_t>(keys.size(), 22);
  std::unordered_multimap<uint64_t, uint64_t> ref;
  for (std::size_t i = 0; i < keys.size(); ++i) ref.emplace(keys[i], values[i]);
  auto queries = distinct_keys<uint64_t>(5000, 23);           // mostly absent
  queries.insert(queries.end(), keys.begin(), keys.begin() + 40000);  // present, repeated
  std::shuffle(queries.begin(), queries.end(), std::mt19937_64(24));

  for (unsigned shards : shard_counts) {
    INFO("shards: " << shards);
    DistributedTable<MultiTable> table(one_gpu(shards), HashOwner(shards, 7), [&](unsigned) {
      return MultiTable(keys.size() * 2 / shards + 2000, {}, test_stream);
    });
    auto d_keys = to_device(keys);
    auto d_values = to_device(values);
    table.insert(d_keys.data(), d_values.data(), keys.size(), test_stream);
    CHECK(table.peek_status().ok());
    CHECK(table.size() == keys.size());
    check_retrieve(table, queries, ref);
    check_ownership(table, std::vector<uint64_t>(keys.begin(), keys.begin() + 20000));
    // The phases were measured.
    CHECK(table.last_times().partition_ms > 0);
    CHECK(table.last_times().allocate_ms > 0);
    CHECK(table.last_times().exchange_ms > 0);
  }
}

TEST_CASE("bucket-list distributed table matches unordered_multimap") {
  const auto keys = keys_with_repeats<uint32_t>(150000, 10000, 31);
  const auto values = random_values<uint32_t>(keys.size(), 32);
  std::unordered_multimap<uint32_t, uint32_t> ref;
  for (std::size_t i = 0; i < keys.size(); ++i) ref.emplace(keys[i], values[i]);
  auto queries = distinct_keys<uint32_t>(12000, 33);
  std::shuffle(queries.begin(), queries.end(), std::mt19937_64(34));

  for (unsigned shards : shard_counts) {
    INFO("shards: " << shards);
    // Pools sized for the worst shard: skewed keys make shard loads uneven.
    DistributedTable<BucketTable> table(one_gpu(shards), HashOwner(shards), [&](unsigned) {
      return BucketTable(10000 * 2 / shards + 1000, keys.size() * 3, {}, test_stream);
    });
    auto d_keys = to_device(keys);
    auto d_values = to_device(values);
    table.insert(d_keys.data(), d_values.data(), keys.size() / 2, test_stream);
    table.insert(d_keys.data() + keys.size() / 2, d_values.data() + keys.size() / 2,
                 keys.size() - keys.size() / 2, test_stream);
    CHECK(table.peek_status().ok());
    CHECK(table.size() == keys.size());
    check_retrieve(table, queries, ref);
  }
}

TEST_CASE("all-to-all: every shard inserts its own batch") {
  const unsigned shards = 4;
  const auto keys = keys_with_repeats<uint64_t>(80000, 20000, 41);
  const auto values = random_values<uint64_t>(keys.size(), 42);
  std::unordered_multimap<uint64_t, uint64_t> ref;
  for (std::size_t i = 0; i < keys.size(); ++i) ref.emplace(keys[i], values[i]);
  DistributedTable<MultiTable> table(one_gpu(shards), HashOwner(shards), [&](unsigned) {
    return MultiTable(keys.size(), {}, test_stream);
  });
  auto d_keys = to_device(keys);
  auto d_values = to_device(values);
  // Uneven pieces, one shard without a batch.
  const std::vector<uint64_t> cut = {0, 10000, 10000, 55000, keys.size()};
  std::vector<ShardBatch<uint64_t, uint64_t>> batches(shards);
  for (unsigned s = 0; s < shards; ++s) {
    batches[s] = {d_keys.data() + cut[s], d_values.data() + cut[s], cut[s + 1] - cut[s]};
  }
  table.insert_from_shards(batches);
  CHECK(table.peek_status().ok());
  CHECK(table.size() == keys.size());
  // Every shard's own insert kernels were timed (its own segment, then what arrived).
  CHECK(table.last_times().shard_table_ms.size() == shards);
  std::vector<uint64_t> queries = distinct_keys<uint64_t>(20000, 41);  // the key pool
  check_retrieve(table, queries, ref);
  check_ownership(table, keys);
}

TEST_CASE("between_shards: the plan without each shard's segment to itself") {
  // counts[s][d]; shard 2 sends nothing, shard 1 nothing to itself.
  const std::vector<std::vector<uint64_t>> counts = {{3, 1, 2}, {4, 0, 5}, {0, 0, 0}};
  const AllToAllPlan plan = plan_all_to_all(counts);
  const AllToAllPlan remote = between_shards(plan);
  CHECK(remote.recv_totals == std::vector<uint64_t>{4, 1, 7});
  for (const Transfer& t : remote.transfers) CHECK(t.from != t.to);
  // Receiver 2 gets shard 0's 2 then shard 1's 5, packed from 0; the senders'
  // offsets are the plan's (shard 0's segment for 2 follows its 3 + 1).
  std::vector<Transfer> to2;
  for (const Transfer& t : remote.transfers) if (t.to == 2 && t.count > 0) to2.push_back(t);
  REQUIRE(to2.size() == 2);
  CHECK((to2[0].from == 0 && to2[0].send_offset == 4 && to2[0].recv_offset == 0));
  CHECK(to2[0].count == 2);
  CHECK((to2[1].from == 1 && to2[1].send_offset == 4 && to2[1].recv_offset == 2));
  CHECK(to2[1].count == 5);
  const Transfer own0 = own_segment(plan, 0);
  CHECK((own0.send_offset == 0 && own0.count == 3));
  CHECK(own_segment(plan, 1).count == 0);
  CHECK(own_segment(plan, 2).count == 0);
}

TEST_CASE("all-to-all retrieval: every shard asks for its own keys") {
  const auto keys = keys_with_repeats<uint64_t>(90000, 20000, 51);
  const auto values = random_values<uint64_t>(keys.size(), 52);
  std::unordered_multimap<uint64_t, uint64_t> ref;
  for (std::size_t i = 0; i < keys.size(); ++i) ref.emplace(keys[i], values[i]);
  // Present keys (repeated) and absent ones, shuffled.
  auto pool = distinct_keys<uint64_t>(20000, 51);
  auto absent = distinct_keys<uint64_t>(3000, 53);
  std::vector<uint64_t> all(pool.begin(), pool.end());
  all.insert(all.end(), absent.begin(), absent.end());
  all.insert(all.end(), keys.begin(), keys.begin() + 7000);
  std::shuffle(all.begin(), all.end(), std::mt19937_64(54));

  for (unsigned shards : shard_counts) {
    INFO("shards: " << shards);
    DistributedTable<MultiTable> table(one_gpu(shards), HashOwner(shards, 3), [&](unsigned) {
      return MultiTable(keys.size() * 2 / shards + 2000, {}, test_stream);
    });
    auto d_keys = to_device(keys);
    auto d_values = to_device(values);
    table.insert(d_keys.data(), d_values.data(), keys.size(), test_stream);
    REQUIRE(table.peek_status().ok());
    // Uneven pieces of `all`, one per shard (from 3 shards on, shard 1 none).
    std::vector<uint64_t> cut(shards + 1, 0);
    for (unsigned s = 1; s <= shards; ++s) {
      cut[s] = s == 2 ? cut[1] : all.size() * s * s / (shards * shards);
    }
    cut[shards] = all.size();
    auto d_all = to_device(all);
    std::vector<ShardQueries<uint64_t>> queries(shards);
    for (unsigned s = 0; s < shards; ++s) queries[s] = {d_all.data() + cut[s], cut[s + 1] - cut[s]};
    const auto answers = table.retrieve_from_shards(queries);
    REQUIRE(answers.size() == shards);
    CHECK(table.last_times().merge_ms > 0);
    // What retrieve() gives for the same keys from shard 0, in the same order.
    mwc::device_buffer<uint64_t> d_offsets(all.size() + 1);
    mwc::device_buffer<uint64_t> d_values_all;
    const uint64_t total = table.retrieve(d_all.data(), all.size(), d_offsets.data(), d_values_all,
                                          test_stream);
    const auto offsets_all = to_host(d_offsets, all.size() + 1);
    const auto values_all = to_host(d_values_all, total);
    uint64_t summed = 0;
    for (unsigned s = 0; s < shards; ++s) {
      INFO("asking shard " << s);
      const uint64_t n = cut[s + 1] - cut[s];
      const auto offsets = to_host(answers[s].offsets, n + 1);
      REQUIRE(offsets[0] == 0);
      REQUIRE(offsets[n] == answers[s].total);
      const auto got = to_host(answers[s].values, answers[s].total);
      summed += answers[s].total;
      for (uint64_t i = 0; i < n; ++i) {
        const uint64_t k = cut[s] + i;
        // Exactly retrieve()'s values, in its order...
        const std::vector<uint64_t> mine(got.begin() + offsets[i], got.begin() + offsets[i + 1]);
        const std::vector<uint64_t> theirs(values_all.begin() + offsets_all[k],
                                           values_all.begin() + offsets_all[k + 1]);
        REQUIRE(mine == theirs);
        // ... which are the reference's.
        auto sorted = mine;
        std::sort(sorted.begin(), sorted.end());
        REQUIRE(sorted == expected_values(ref, all[k]));
      }
    }
    CHECK(summed == total);
    // Answers kept from call to call are reused (the second call's buffers
    // are the first's) and hold the same answers.
    std::vector<ShardAnswers<uint64_t>> reused;
    for (int call = 0; call < 2; ++call) {
      table.retrieve_from_shards(queries, reused);
      REQUIRE(reused.size() == shards);
      for (unsigned s = 0; s < shards; ++s) {
        const uint64_t n = cut[s + 1] - cut[s];
        REQUIRE(reused[s].total == answers[s].total);
        CHECK(reused[s].device == 0);
        CHECK(to_host(reused[s].offsets, n + 1) == to_host(answers[s].offsets, n + 1));
        CHECK(to_host(reused[s].values, reused[s].total) ==
              to_host(answers[s].values, answers[s].total));
      }
    }
  }
  DistributedOptions independent;
  independent.mode = Mode::independent;
  DistributedTable<MultiTable> table(one_gpu(2), HashOwner(2), [&](unsigned) {
    return MultiTable(1000, {}, test_stream);
  }, independent);
  CHECK_THROWS_AS(table.retrieve_from_shards(std::vector<ShardQueries<uint64_t>>(2)), std::logic_error);
}

namespace {

std::uint64_t pool_bytes(cudaMemPoolAttr what) {
  std::uint64_t bytes = 0;
  mwc::check(cudaMemPoolGetAttribute(mwc::device_pool(0), what, &bytes), "reading a pool attribute");
  return bytes;
}

}  // namespace

TEST_CASE("pooled buffers: stream-ordered scratch whose memory stays for the next call") {
  mwc::stream stream;
  std::vector<uint64_t> host(5000);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = i * 7 + 1;
  {
    auto a = mwc::make_pooled<uint64_t>(host.size(), stream);
    REQUIRE(a.size() == host.size());
    a.copy_from_host(host.data(), host.size(), stream);
    auto b = std::move(a);  // the allocator (pool, stream) moves with the memory
    CHECK(a.empty());
    std::vector<uint64_t> back(host.size());
    b.copy_to_host(back.data(), back.size(), stream);
    stream.synchronize();
    CHECK(back == host);
    CHECK(mwc::make_pooled<uint64_t>(0, stream).data() == nullptr);
  }
  stream.synchronize();
  CHECK(pool_bytes(cudaMemPoolAttrUsedMemCurrent) == 0);
  CHECK(pool_bytes(cudaMemPoolAttrReservedMemCurrent) > 0);  // kept, not handed back
}

TEST_CASE("distributed operations give every pooled buffer back, and a warmed one reserves no more") {
  const auto keys = keys_with_repeats<uint64_t>(60000, 15000, 61);
  const auto values = random_values<uint64_t>(keys.size(), 62);
  const unsigned shards = 3;
  auto d_keys = to_device(keys);
  auto d_values = to_device(values);
  std::vector<ShardBatch<uint64_t, uint64_t>> batches(shards);
  std::vector<ShardQueries<uint64_t>> queries(shards);
  const uint64_t piece = keys.size() / shards;
  for (unsigned s = 0; s < shards; ++s) {
    batches[s] = {d_keys.data() + s * piece, d_values.data() + s * piece, piece};
    queries[s] = {d_keys.data() + s * piece, piece / 2};
  }
  std::vector<ShardAnswers<uint64_t>> answers;
  std::uint64_t reserved = 0, total = 0;
  for (int call = 0; call < 3; ++call) {  // as bench_distributed: a fresh table each time
    INFO("call " << call);
    DistributedTable<MultiTable> table(one_gpu(shards), HashOwner(shards), [&](unsigned) {
      return MultiTable(keys.size(), {}, test_stream);
    });
    table.insert_from_shards(batches);
    table.retrieve_from_shards(queries, answers);
    table.shards().synchronize_all();
    REQUIRE(table.peek_status().ok());
    std::uint64_t sum = 0;
    for (const auto& a : answers) sum += a.total;
    if (call > 0) CHECK(sum == total);
    total = sum;
    CHECK(pool_bytes(cudaMemPoolAttrUsedMemCurrent) == 0);
    // The same sizes again are served from what the pool kept.
    if (call == 2) CHECK(pool_bytes(cudaMemPoolAttrReservedMemCurrent) == reserved);
    reserved = pool_bytes(cudaMemPoolAttrReservedMemCurrent);
  }
}

TEST_CASE("range owner: contiguous key ranges per shard") {
  const unsigned shards = 3;
  const RangeOwner owner = RangeOwner::even(shards, uint64_t(1) << 32);
  const auto keys = distinct_keys<uint32_t>(60000, 51);
  const auto values = random_values<uint32_t>(keys.size(), 52);
  DistributedTable<SingleTable, RangeOwner> table(one_gpu(shards), owner, [&](unsigned) {
    return SingleTable(keys.size(), {}, test_stream);
  });
  auto d_keys = to_device(keys);
  auto d_values = to_device(values);
  table.insert(d_keys.data(), d_values.data(), keys.size(), test_stream);
  CHECK(table.peek_status().ok());
  check_ownership(table, keys);
  mwc::device_buffer<uint32_t> d_found(keys.size());
  table.find(d_keys.data(), keys.size(), d_found.data(), {}, test_stream);
  CHECK(to_host(d_found, keys.size()) == values);
}

TEST_CASE("empty shards, empty batches and skewed keys") {
  SECTION("8 shards, 3 keys: most shards stay empty") {
    std::unordered_multimap<uint64_t, uint64_t> ref;
    const std::vector<uint64_t> keys = {5, 77, 5};
    const std::vector<uint64_t> values = {1, 2, 3};
    for (std::size_t i = 0; i < keys.size(); ++i) ref.emplace(keys[i], values[i]);
    DistributedTable<MultiTable> table(one_gpu(8), HashOwner(8), [](unsigned) {
      return MultiTable(100, {}, test_stream);
    });
    auto d_keys = to_device(keys);
    auto d_values = to_device(values);
    table.insert(d_keys.data(), d_values.data(), 0, test_stream);  // nothing
    table.insert(d_keys.data(), d_values.data(), keys.size(), test_stream);
    CHECK(table.size() == 3);
    check_retrieve(table, std::vector<uint64_t>{77, 5, 6, 5}, ref);
    check_retrieve(table, std::vector<uint64_t>{}, ref);
  }
  SECTION("every key owned by one shard") {
    const unsigned shards = 4;
    const HashOwner owner(shards);
    for (unsigned target : {0u, 3u}) {
      const auto keys = keys_owned_by<uint64_t>(owner, target, 30000, 60 + target);
      const auto values = random_values<uint64_t>(keys.size(), 61);
      std::unordered_multimap<uint64_t, uint64_t> ref;
      for (std::size_t i = 0; i < keys.size(); ++i) ref.emplace(keys[i], values[i]);
      DistributedTable<MultiTable> table(one_gpu(shards), owner, [&](unsigned) {
        return MultiTable(keys.size() * 2, {}, test_stream);
      });
      auto d_keys = to_device(keys);
      auto d_values = to_device(values);
      table.insert(d_keys.data(), d_values.data(), keys.size(), test_stream);
      CHECK(table.peek_status().ok());
      for (unsigned s = 0; s < shards; ++s) {
        CHECK(table.shard(s).size(test_stream) == (s == target ? keys.size() : 0));
      }
      check_retrieve(table, keys, ref);
    }
  }
}

TEST_CASE("a full shard reports its error, never hangs") {
  const unsigned shards = 4;
  const HashOwner owner(shards);
  SECTION("single-value: table_full on the overloaded shard") {
    const auto keys = keys_owned_by<uint32_t>(owner, 2, 5000, 71);
    const auto values = random_values<uint32_t>(keys.size(), 72);
    DistributedTable<SingleTable> table(one_gpu(shards), owner, [](unsigned) {
      return SingleTable(1000, {}, test_stream);
    });
    auto d_keys = to_device(keys);
    auto d_values = to_device(values);
    table.insert(d_keys.data(), d_values.data(), keys.size(), test_stream);
    const Status s = table.peek_status();
    CHECK(s.has(Status::table_full));
    CHECK(s.has_error());
    CHECK(table.shard(2).peek_status(test_stream).has(Status::table_full));
    CHECK(table.shard(0).peek_status(test_stream).ok());
    CHECK(table.shard(2).size(test_stream) == table.shard(2).capacity());
  }
  SECTION("bucket list: out_of_memory when a shard's pool runs out") {
    const auto keys = keys_owned_by<uint32_t>(owner, 1, 4000, 73);
    const auto values = random_values<uint32_t>(keys.size(), 74);
    DistributedTable<BucketTable> table(one_gpu(shards), owner, [](unsigned) {
      return BucketTable(8000, 1000, {}, test_stream);
    });
    auto d_keys = to_device(keys);
    auto d_values = to_device(values);
    table.insert(d_keys.data(), d_values.data(), keys.size(), test_stream);
    CHECK(table.pop_status().has(Status::out_of_memory));
    CHECK(table.peek_status().ok());  // popped
  }
}

TEST_CASE("independent mode: one table per shard, queries to all, answers merged") {
  const unsigned shards = 3;
  const auto keys = keys_with_repeats<uint64_t>(60000, 15000, 81);
  const auto values = random_values<uint64_t>(keys.size(), 82);
  std::unordered_multimap<uint64_t, uint64_t> ref;
  for (std::size_t i = 0; i < keys.size(); ++i) ref.emplace(keys[i], values[i]);
  DistributedOptions options;
  options.mode = Mode::independent;
  DistributedTable<MultiTable> table(one_gpu(shards), HashOwner(shards), [&](unsigned) {
    return MultiTable(keys.size(), {}, test_stream);
  }, options);
  auto d_keys = to_device(keys);
  auto d_values = to_device(values);
  // Half cut into one chunk per shard, the rest inserted where it is (shard 1).
  const std::size_t half = keys.size() / 2;
  table.insert(d_keys.data(), d_values.data(), half, test_stream);
  table.insert_local(1, d_keys.data() + half, d_values.data() + half, keys.size() - half, test_stream);
  CHECK(table.peek_status().ok());
  CHECK(table.size() == keys.size());
  CHECK(table.shard(0).size(test_stream) == half / 3);
  auto queries = distinct_keys<uint64_t>(15000, 81);
  queries.push_back(12345);
  check_retrieve(table, queries, ref);
  CHECK_THROWS_AS(table.insert_from_shards({}), std::logic_error);

  // Single value: the lowest shard holding a key answers.
  DistributedTable<SingleTable> single(one_gpu(shards), HashOwner(shards), [](unsigned) {
    return SingleTable(1000, {}, test_stream);
  }, options);
  const std::vector<uint32_t> k = {10, 20, 30};
  const std::vector<uint32_t> v0 = {1, 2, 3}, v2 = {100, 200, 300};
  auto dk = to_device(k);
  auto dv0 = to_device(v0);
  auto dv2 = to_device(v2);
  single.insert_local(2, dk.data(), dv2.data(), 3, test_stream);
  single.insert_local(0, dk.data(), dv0.data(), 2, test_stream);  // 10, 20 also on shard 0
  const std::vector<uint32_t> q = {30, 20, 10, 40};
  auto dq = to_device(q);
  mwc::device_buffer<uint32_t> d_out(q.size());
  mwc::device_buffer<bool> d_in(q.size());
  single.find(dq.data(), q.size(), d_out.data(), 0u, test_stream);
  single.contains(dq.data(), q.size(), d_in.data(), test_stream);
  CHECK(to_host(d_out, q.size()) == std::vector<uint32_t>{300, 2, 1, 0});
  CHECK(to_host(d_in, q.size()) == std::vector<bool>{true, true, true, false});
}

TEST_CASE("device lists and exchange choice") {
  CHECK_THROWS_AS((DistributedTable<SingleTable>({0, 999}, HashOwner(2),
                                                 [](unsigned) { return SingleTable(10, {}, test_stream); })),
                  std::invalid_argument);
  CHECK_THROWS_AS((DistributedTable<SingleTable>({0, 0}, HashOwner(3),
                                                 [](unsigned) { return SingleTable(10, {}, test_stream); })),
                  std::invalid_argument);
  // NCCL ranks cannot share a GPU (and a build without NCCL has none).
  DistributedOptions nccl;
  nccl.exchange = ExchangeKind::nccl;
  CHECK_THROWS_AS((DistributedTable<SingleTable>({0, 0}, HashOwner(2),
                                                 [](unsigned) { return SingleTable(10, {}, test_stream); }, nccl)),
                  std::invalid_argument);
  const ShardSet two({0, 0});
  CHECK(std::string(make_exchange(two, ExchangeKind::local_copy)->name()) == "local-copy");
  CHECK(two.single_device());
  CHECK(!two.distinct_devices());
  int devices = 0;
  mwc::check(cudaGetDeviceCount(&devices), "counting devices");
  if (devices >= 2 && nccl_available()) {
    const ShardSet distinct({0, 1});
    CHECK(std::string(make_exchange(distinct, ExchangeKind::automatic)->name()) == "nccl");
  }
}
