// Inputs and outputs beyond 2^31 elements: sizes, counts, offsets and grid
// strides must be 64-bit everywhere. Keys and values are computed on the GPU
// (a host reference of 2^31 pairs would take minutes) and checked there by
// counting mismatches and comparing order-independent checksums.
#include <cstdint>

#include "catch.hpp"
#include "gpu_test_support.cuh"
#include "metawarp/tables/hashers.hpp"
#include "metawarp/tables/multi_value_table.cuh"
#include "metawarp/tables/single_value_table.cuh"

namespace mwc = metawarp::cuda;
using namespace metawarp::tables;
using metawarp::tables::testing::test_stream;

namespace {

// More pairs than a signed 32-bit count can hold.
constexpr std::uint64_t pair_count = (std::uint64_t(1) << 31) + (std::uint64_t(1) << 24);

// A pair's value, distinct from its key's bits so swapped outputs are caught.
__host__ __device__ inline std::uint32_t value_of(std::uint64_t i) {
  return fmix32(std::uint32_t(i) ^ 0x5bd1e995u);
}

// Applies f(i) for i in [0, n) with a bounded grid.
template <class F>
__global__ void for_each_index(std::uint64_t n, F f) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    f(i);
}

template <class F>
void run_over(std::uint64_t n, F f) {
  for_each_index<<<4096, 256>>>(n, f);
  mwc::check(cudaDeviceSynchronize(), "test kernel");
}

std::uint64_t read_counter(const mwc::device_buffer<unsigned long long>& counter) {
  return metawarp::tables::testing::to_host(counter, 1)[0];
}

// Free device memory; the tests skip (with a message) below what they need.
bool enough_memory(std::uint64_t needed_bytes) {
  std::size_t free_bytes = 0, total_bytes = 0;
  mwc::check(cudaMemGetInfo(&free_bytes, &total_bytes), "querying device memory");
  if (free_bytes >= needed_bytes) return true;
  WARN("skipped: needs " << needed_bytes / (1u << 30) << " GiB of free device memory, "
                         << free_bytes / (1u << 30) << " GiB free");
  return false;
}

}  // namespace

TEST_CASE("SingleValueHashTable with more than 2^31 pairs: insert, find, retrieve_all") {
  using Table = SingleValueHashTable<std::uint32_t, std::uint32_t>;
  const std::uint64_t n = pair_count;
  if (!enough_memory(std::uint64_t(46) << 30)) return;
  // Keys 1..n: distinct, never a sentinel (those are at the top of the range).
  mwc::device_buffer<std::uint32_t> keys(n), values(n);
  std::uint32_t* k = keys.data();
  std::uint32_t* v = values.data();
  run_over(n, [=] __device__(std::uint64_t i) {
    k[i] = std::uint32_t(i + 1);
    v[i] = value_of(i);
  });
  Table table(std::uint64_t(double(n) / 0.9), {}, test_stream);
  table.insert(k, v, n, test_stream);
  REQUIRE(table.peek_status(test_stream).ok());
  REQUIRE(table.size(test_stream) == n);

  mwc::device_buffer<unsigned long long> mismatches(1);
  {
    mwc::device_buffer<std::uint32_t> found(n);
    table.find(k, n, found.data(), 0, test_stream);
    mismatches.fill_bytes(0, test_stream);
    unsigned long long* bad = mismatches.data();
    const std::uint32_t* f = found.data();
    run_over(n, [=] __device__(std::uint64_t i) {
      if (f[i] != value_of(i)) atomicAdd(bad, 1ull);
    });
    CHECK(read_counter(mismatches) == 0);
  }

  // retrieve_all into the input buffers: every pair exactly once, any order.
  REQUIRE(table.retrieve_all(k, v, test_stream) == n);
  mismatches.fill_bytes(0, test_stream);
  unsigned long long* bad = mismatches.data();
  mwc::device_buffer<unsigned long long> key_sum(1);
  key_sum.fill_bytes(0, test_stream);
  unsigned long long* sum = key_sum.data();
  run_over(n, [=] __device__(std::uint64_t i) {
    const std::uint64_t index = std::uint64_t(k[i]) - 1;  // the key says which pair it is
    if (index >= n || v[i] != value_of(index)) atomicAdd(bad, 1ull);
    atomicAdd(sum, (unsigned long long)k[i]);
  });
  CHECK(read_counter(mismatches) == 0);
  CHECK(read_counter(key_sum) == n * (n + 1) / 2);  // no key twice, none missing
}

TEST_CASE("MultiValueHashTable retrieval with more than 2^31 values: 64-bit offsets") {
  using Table = MultiValueHashTable<std::uint32_t, std::uint32_t>;
  const std::uint64_t n = pair_count;
  const std::uint64_t distinct = std::uint64_t(1) << 28;  // 8 values per key on average
  if (!enough_memory(std::uint64_t(48) << 30)) return;
  Table table(std::uint64_t(double(n) / 0.8), {}, test_stream);
  {
    // Pair i: key 1 + i % distinct, value i (distinct values, all below 2^32).
    mwc::device_buffer<std::uint32_t> keys(n), values(n);
    std::uint32_t* k = keys.data();
    std::uint32_t* v = values.data();
    run_over(n, [=] __device__(std::uint64_t i) {
      k[i] = std::uint32_t(1 + i % distinct);
      v[i] = std::uint32_t(i);
    });
    table.insert(k, v, n, test_stream);
    REQUIRE(table.peek_status(test_stream).ok());
  }
  REQUIRE(table.size(test_stream) == n);

  mwc::device_buffer<std::uint32_t> query(distinct);
  std::uint32_t* q = query.data();
  run_over(distinct, [=] __device__(std::uint64_t j) { q[j] = std::uint32_t(j + 1); });
  mwc::device_buffer<std::uint64_t> offsets(distinct + 1);
  const std::uint64_t total = table.retrieve_offsets(q, distinct, offsets.data(), test_stream);
  REQUIRE(total == n);
  mwc::device_buffer<std::uint32_t> out(total);
  table.retrieve(q, distinct, offsets.data(), out.data(), test_stream);
  mwc::check(cudaDeviceSynchronize(), "retrieve");

  // Key j + 1 holds exactly the values i < n with i % distinct == j.
  mwc::device_buffer<unsigned long long> mismatches(1);
  mismatches.fill_bytes(0, test_stream);
  unsigned long long* bad = mismatches.data();
  const std::uint64_t* o = offsets.data();
  const std::uint32_t* values_out = out.data();
  run_over(distinct, [=] __device__(std::uint64_t j) {
    const std::uint64_t expected_count = (n - j + distinct - 1) / distinct;
    if (o[j + 1] - o[j] != expected_count) {
      atomicAdd(bad, 1ull);
      return;
    }
    unsigned long long sum = 0;
    for (std::uint64_t x = o[j]; x < o[j + 1]; ++x) {
      if (values_out[x] % distinct != j) atomicAdd(bad, 1ull);
      sum += values_out[x];
    }
    // Distinct values of the right residue with the right count and sum: the
    // arithmetic series j, j + distinct, ...
    const unsigned long long c = expected_count;
    if (sum != c * j + distinct * c * (c - 1) / 2) atomicAdd(bad, 1ull);
  });
  CHECK(read_counter(mismatches) == 0);
  std::uint64_t last = 0;
  mwc::check(cudaMemcpy(&last, o + distinct, sizeof last, cudaMemcpyDeviceToHost), "last offset");
  CHECK(last == n);
}
