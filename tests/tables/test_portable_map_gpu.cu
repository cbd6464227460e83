// DevicePortableMap: its row of the matrix (table_matrix.cuh: key/value
// types x window sizes) through the single-value suite (table_checks.cuh;
// growth from a small table among them); tombstone
// cleanup, host <-> device round trips (same slots on both sides) and the
// device API from a user kernel.
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "catch_templates.hpp"
#include "gpu_test_support.cuh"
#include "metawarp/tables/portable_map.cuh"
#include "table_checks.cuh"
#include "table_matrix.cuh"

namespace mwc = metawarp::cuda;
using namespace metawarp::tables;
using namespace metawarp::tables::testing;

namespace {

template <class Ref, class K, class V>
__global__ void insert_in_kernel(Ref map, const K* keys, const V* values, std::uint64_t n) {
  auto g = cg::tiled_partition<Ref::group_size>(cg::this_thread_block());
  const std::uint64_t i = (blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x) / Ref::group_size;
  if (i < n) map.insert(g, keys[i], values[i]);
}

template <class Map>
std::unordered_map<typename Map::key_type, typename Map::value_type> host_contents(
    const PortableMap<typename Map::key_type, typename Map::value_type>& map) {
  std::unordered_map<typename Map::key_type, typename Map::value_type> out;
  map.for_each([&](auto k, auto v) { out.emplace(k, v); });
  return out;
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("device portable map matches std::unordered_map", "[gpu][portable]",
                        matrix::PortableMaps) {
  using Map = TestType;
  using K = typename Map::key_type;
  using V = typename Map::value_type;
  shared_checks_section<Map>(PortableMapOptions{}, {.when_full = WhenFull::grows});
  auto&& [stream, n, keys, values, reference, d_keys, d_values] =
      DevicePairsOf<Map>(20000, 51, 52);

  SECTION("growth from a tiny table keeps the load factor bounded") {
    Map map(4, PortableMapOptions{}, stream);
    for (std::size_t done = 0; done < n; done += 2500) {
      map.insert(d_keys.data() + done, d_values.data() + done, 2500, stream);
      CHECK(map.load_factor(stream) <= PortableMapOptions{}.max_load_factor);
    }
    CHECK(map.peek_status(stream).ok());
    CHECK(map.size(stream) == n);
    CHECK(host_contents<Map>(map.download(stream)) == reference);
  }

  SECTION("tombstone cleanup keeps the contents and empties the tombstones") {
    Map map(n, PortableMapOptions{}, stream);
    map.insert(d_keys.data(), d_values.data(), n, stream);
    const std::size_t erased = n / 3;
    map.erase(d_keys.data(), erased, stream);
    for (std::size_t i = 0; i < erased; ++i) reference.erase(keys[i]);
    CHECK(map.tombstones(stream) == erased);
    const std::uint64_t capacity = map.capacity();
    map.clean_tombstones(stream);
    CHECK(map.tombstones(stream) == 0);
    CHECK(map.capacity() == capacity);
    CHECK(map.size(stream) == n - erased);
    const auto host = map.download(stream);
    CHECK(host.tombstones() == 0);
    CHECK(host_contents<Map>(host) == reference);
    mwc::device_buffer<V> d_out(n);
    map.find(d_keys.data(), n, d_out.data(), V(7), stream);
    const auto out = to_host(d_out, n);
    for (std::size_t i = 0; i < n; ++i) REQUIRE(out[i] == (i < erased ? V(7) : values[i]));
  }

  SECTION("host-built map uploads, device updates download back") {
    PortableMap<K, V> host(16);
    for (std::size_t i = 0; i < n / 2; ++i) host.insert(keys[i], values[i]);
    host.erase(keys[0]);
    Map map = Map::upload(host, stream);
    CHECK(map.size(stream) == host.size());
    CHECK(map.tombstones(stream) == 1);
    mwc::device_buffer<V> d_out(n / 2);
    map.find(d_keys.data(), n / 2, d_out.data(), V(7), stream);
    const auto out = to_host(d_out, n / 2);
    for (std::size_t i = 0; i < n / 2; ++i) REQUIRE(out[i] == (i == 0 ? V(7) : values[i]));

    // A user kernel adds the rest (no growth from device code: room first).
    map.rehash(host.size_power() + 2, stream);
    const std::size_t rest = n - n / 2;
    const unsigned blocks = unsigned((rest * Map::group_size + 255) / 256);
    insert_in_kernel<<<blocks, 256, 0, stream>>>(map.ref(), d_keys.data() + n / 2,
                                                 d_values.data() + n / 2, rest);
    mwc::check(cudaStreamSynchronize(stream), "portable insert kernel");
    CHECK(map.peek_status(stream).ok());
    reference.erase(keys[0]);
    const auto back = map.download(stream);
    CHECK(back.size() == n - 1);
    CHECK(host_contents<Map>(back) == reference);
    for (std::size_t i = 1; i < n; i += 97) REQUIRE(*back.find(keys[i]) == values[i]);
  }
}
