// IcebergTable: its row of the matrix (table_matrix.cuh: key/value types,
// layouts, bucket sizes) through the single-value suite (table_checks.cuh),
// and a race test: many repetitions of one kernel
// that inserts keys repeated side by side (copies race in one warp, in the
// front yard and under the backyard lock) while other groups look up keys
// stored before, at loads 0.5 up to the table's claimed limit.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <unordered_map>
#include <utility>
#include <vector>

#include "catch_templates.hpp"
#include "gpu_test_support.cuh"
#include "metawarp/tables/iceberg_table.cuh"
#include "table_checks.cuh"
#include "table_matrix.cuh"

namespace mwc = metawarp::cuda;
using namespace metawarp::tables;
using namespace metawarp::tables::testing;

namespace {

// Even groups insert the batch (status per item); odd groups look up the
// keys stored before this kernel (found value, or `missing`).
template <class Ref, class K, class V>
__global__ void insert_while_finding(Ref table, const K* keys, const V* values, std::uint64_t n,
                                     Status* status, const K* old_keys, std::uint64_t old_n,
                                     V* old_found, V missing) {
  auto g = cg::tiled_partition<Ref::group_size>(cg::this_thread_block());
  const std::uint64_t i = (blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x) / Ref::group_size;
  if (i >= 2 * n) return;
  const std::uint64_t j = i / 2;
  if (i % 2 == 0) {
    const Status s = table.insert(g, keys[j], values[j]);
    if (g.thread_rank() == 0) status[j] = s;
  } else if (j < old_n) {
    V value = missing;
    table.find(g, old_keys[j], value);
    if (g.thread_rank() == 0) old_found[j] = value;
  }
}

// The highest load at which every insert must succeed (iceberg_table.cuh).
template <int B>
constexpr double claimed_load = B == 8 ? 0.85 : 0.9;

}  // namespace

TEMPLATE_LIST_TEST_CASE("iceberg table", "[gpu][iceberg]", matrix::IcebergTables) {
  using Table = TestType;
  using K = typename Table::key_type;
  using V = typename Table::value_type;

  shared_checks_section<Table>(IcebergOptions{},
                               {.when_full = WhenFull::reports_pair, .exact_duplicate_status = true});

  SECTION("racing duplicate inserts beside lookups, loads 0.5 to the claimed limit") {
    BlockingStream stream;
    const std::size_t capacity = 60000;
    const V missing = V(7);
    std::vector<double> loads = {0.5, 0.7, 0.8, claimed_load<Table::group_size>};
    for (double load : loads) {
      for (int rep = 0; rep < 12; ++rep) {
        // Half the keys are stored first, the other half arrive in one
        // kernel in 1..4 copies with distinct values: two copies side by
        // side (they race in one warp) and the others anywhere in the batch
        // (they race with other keys' inserts changing the loads between).
        const std::size_t distinct = std::size_t(load * capacity);
        const std::size_t old_n = distinct / 2;
        const auto keys = distinct_keys<K>(distinct, 1000 + rep);
        const auto old_values = random_values<V>(old_n, 2000 + rep);
        std::vector<std::pair<K, V>> side_by_side, scattered;
        for (std::size_t i = old_n; i < distinct; ++i) {
          for (std::size_t c = 0; c < 1 + (i + rep) % 4; ++c) {
            // Values from 8 up: never `missing`.
            (c < 2 ? side_by_side : scattered).emplace_back(keys[i], V(8 + 4 * i + c));
          }
        }
        std::shuffle(scattered.begin(), scattered.end(), std::mt19937_64(3000 + rep));
        std::vector<K> batch;
        std::vector<V> batch_values;
        for (std::size_t step = 0, a = 0, b = 0; a < side_by_side.size() || b < scattered.size();
             ++step) {
          const bool take_scattered =
              b < scattered.size() && (a == side_by_side.size() || step % 3 == 2);
          const auto& [k, v] = take_scattered ? scattered[b++] : side_by_side[a++];
          batch.push_back(k);
          batch_values.push_back(v);
        }
        auto d_old = to_device(std::vector<K>(keys.begin(), keys.begin() + old_n));
        auto d_old_values = to_device(old_values);
        auto d_batch = to_device(batch);
        auto d_batch_values = to_device(batch_values);
        IcebergOptions options;
        options.seed = std::uint64_t(rep);
        Table table(capacity, options, stream);
        require_all(insert_with_status(table, d_old, d_old_values, old_n, stream), 0);
        mwc::device_buffer<Status> d_status(batch.size());
        mwc::device_buffer<V> d_old_found(old_n);
        const unsigned blocks = unsigned((2 * batch.size() * Table::group_size + 255) / 256);
        insert_while_finding<<<blocks, 256, 0, stream>>>(
            table.ref(), d_batch.data(), d_batch_values.data(), batch.size(), d_status.data(),
            d_old.data(), old_n, d_old_found.data(), missing);
        mwc::check(cudaStreamSynchronize(stream), "iceberg race kernel");
        INFO("load " << load << ", repetition " << rep);

        // Lookups during the inserts found every pair stored before.
        REQUIRE(to_host(d_old_found, old_n) == old_values);
        // Exactly one ok per key, all other copies duplicate_key, nothing full.
        auto ok_value =
            ok_pairs(to_host(d_status, batch.size()), batch, batch_values, Status::duplicate_key);
        REQUIRE(ok_value.size() == distinct - old_n);
        // The table holds each key once, with the value of its ok copy.
        for (std::size_t i = 0; i < old_n; ++i) ok_value.emplace(keys[i], old_values[i]);
        REQUIRE(table.size(stream) == distinct);
        REQUIRE(stored_pairs(table, stream) == ok_value);
        const Status total = table.pop_status(stream);
        CHECK_FALSE(total.has_error());
        CHECK(total.has(Status::duplicate_key) == (batch.size() > distinct - old_n));
      }
    }
  }

  SECTION("beyond the claimed load: table_full counted exactly, the rest stored") {
    BlockingStream stream;
    const std::size_t capacity = 40000;
    const std::size_t n = capacity;  // load 1.0
    const auto keys = distinct_keys<K>(n, 77);
    const auto values = random_values<V>(n, 78);
    auto d_keys = to_device(keys);
    auto d_values = to_device(values);
    Table table(capacity, IcebergOptions{}, stream);
    // Every status is ok or table_full, so the table_full count is n - stored.
    const auto stored_ok =
        ok_pairs(insert_with_status(table, d_keys, d_values, n, stream), keys, values,
                 Status::table_full);
    CHECK(stored_ok.size() < n);
    CHECK(stored_ok.size() >= std::size_t(claimed_load<Table::group_size> * table.capacity()));
    CHECK(table.peek_status(stream).has(Status::table_full));
    CHECK(stored_pairs(table, stream) == stored_ok);
  }

  SECTION("layout of the two yards; an invalid backyard share is refused") {
    BlockingStream stream;
    const Table table(100000, IcebergOptions{}, stream);
    CHECK(table.capacity() >= 100000);
    CHECK(table.front_capacity() + table.backyard_capacity() == table.capacity());
    const double share = double(table.backyard_capacity()) / double(table.capacity());
    CHECK(std::abs(share - iceberg_default_backyard_fraction<Table::group_size>) < 0.01);
    IcebergOptions o;
    o.backyard_fraction = 1.0;
    CHECK_THROWS_AS(Table(1000, o, stream), std::invalid_argument);
  }
}
