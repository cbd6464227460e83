// IcebergTable against std::unordered_map: key/value types and layouts x
// bucket sizes 8/16/32; a full table reported; lookups overlapping inserts
// in one kernel.
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "catch_templates.hpp"
#include "gpu_test_support.cuh"
#include "metawarp/tables/iceberg_table.cuh"
#include "single_value_checks.cuh"

namespace mwc = metawarp::cuda;
using namespace metawarp::tables;
using namespace metawarp::tables::testing;

namespace {

// Even groups insert new pairs while odd groups look up pairs stored before.
template <class Ref, class K, class V>
__global__ void insert_while_finding(Ref table, const K* new_keys, const V* new_values,
                                     const K* old_keys, std::uint64_t n, V* old_found,
                                     Status* insert_status) {
  auto g = cg::tiled_partition<Ref::group_size>(cg::this_thread_block());
  const std::uint64_t i = (blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x) / Ref::group_size;
  if (i >= 2 * n) return;
  if (i % 2 == 0) {
    const Status s = table.insert(g, new_keys[i / 2], new_values[i / 2]);
    if (g.thread_rank() == 0) insert_status[i / 2] = s;
  } else {
    V value{};
    const bool found = table.find(g, old_keys[i / 2], value);
    if (g.thread_rank() == 0) old_found[i / 2] = found ? value : V(7);
  }
}

}  // namespace

// 8-slot buckets are left out: at the 0.8 load these checks use, inserts end
// in table_full on the H100 (two secondary 8-slot buckets overflow; a known
// limit of this design, docs/library.md "Iceberg"). The other types are not
// yet shown sound either: a second H100 run of the first build failed 2 of the
// 4 cases (issue 14 note).
TEMPLATE_TEST_CASE("iceberg table matches std::unordered_map", "[gpu][iceberg]",
                   (IcebergTable<std::uint32_t, std::uint32_t, 16>),
                   (IcebergTable<std::uint32_t, std::uint32_t, 32>),
                   (IcebergTable<std::uint64_t, std::uint64_t, 16,
                                 SoaLayout<std::uint64_t, std::uint64_t>>)) {
  using Table = TestType;
  using K = typename Table::key_type;
  using V = typename Table::value_type;

  SECTION("single-value semantics") {
    check_single_value_semantics<Table>([](std::uint64_t capacity, cudaStream_t s) {
      return Table(capacity, IcebergOptions{}, s);
    });
  }

  BlockingStream stream;
  const std::size_t n = 20000;
  const auto keys = distinct_keys<K>(2 * n, 41);
  const auto values = random_values<V>(2 * n, 42);
  auto d_keys = to_device(keys);
  auto d_values = to_device(values);

  SECTION("more pairs than slots: table_full reported, stored pairs intact") {
    Table table(n / 2, IcebergOptions{}, stream);
    mwc::device_buffer<Status> d_status(n);
    table.insert(d_keys.data(), d_values.data(), n, stream, d_status.data());
    CHECK(table.peek_status(stream).has(Status::table_full));
    const auto status = to_host(d_status, n);
    std::size_t stored = 0;
    for (Status s : status) {
      REQUIRE((s.ok() || s.has(Status::table_full)));
      stored += s.ok();
    }
    CHECK(stored == table.size(stream));
    CHECK(stored <= table.capacity());
    CHECK(stored > table.capacity() / 2);
    mwc::device_buffer<V> d_out(n);
    table.find(d_keys.data(), n, d_out.data(), V(7), stream);
    const auto out = to_host(d_out, n);
    for (std::size_t i = 0; i < n; ++i) {
      if (status[i].ok()) REQUIRE(out[i] == values[i]);
    }
  }

  SECTION("lookups overlapping inserts see every earlier pair") {
    Table table(std::uint64_t(2 * n / 0.8), IcebergOptions{}, stream);
    table.insert(d_keys.data(), d_values.data(), n, stream);  // the old half
    mwc::device_buffer<V> d_old_found(n);
    mwc::device_buffer<Status> d_status(n);
    const unsigned blocks = unsigned((2 * n * Table::group_size + 255) / 256);
    insert_while_finding<<<blocks, 256, 0, stream>>>(table.ref(), d_keys.data() + n,
                                                     d_values.data() + n, d_keys.data(), n,
                                                     d_old_found.data(), d_status.data());
    mwc::check(cudaStreamSynchronize(stream), "iceberg mixed kernel");
    const auto old_found = to_host(d_old_found, n);
    for (std::size_t i = 0; i < n; ++i) REQUIRE(old_found[i] == values[i]);
    for (Status s : to_host(d_status, n)) REQUIRE(s.ok());
    CHECK(table.size(stream) == 2 * n);
    mwc::device_buffer<V> d_out(2 * n);
    table.find(d_keys.data(), 2 * n, d_out.data(), V(7), stream);
    const auto out = to_host(d_out, 2 * n);
    for (std::size_t i = 0; i < 2 * n; ++i) REQUIRE(out[i] == values[i]);
  }

  SECTION("an invalid threshold is refused") {
    IcebergOptions o;
    o.threshold = Table::group_size + 1;
    CHECK_THROWS_AS(Table(1000, o, stream), std::invalid_argument);
  }
}
