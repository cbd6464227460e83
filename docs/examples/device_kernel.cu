// A user kernel calling the device API: each group of Ref::group_size threads
// counts k-mers of a DNA string straight into a counting table (no staging
// array of keys), then the host compares the counts with a serial count.
#include <cooperative_groups.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "example_support.hpp"
#include "metawarp/cuda/stream.hpp"
#include "metawarp/tables/counting_table.cuh"

namespace mw = metawarp;
namespace cg = cooperative_groups;

constexpr int k = 12;  // 24 bits: a k-mer is its own key, never a sentinel

__host__ __device__ inline int base_code(char c) {
  return c == 'A' ? 0 : c == 'C' ? 1 : c == 'G' ? 2 : 3;
}

__host__ __device__ inline std::uint32_t kmer_at(const char* text, std::uint64_t i) {
  std::uint32_t key = 0;
  for (int j = 0; j < k; ++j) key = (key << 2) | base_code(text[i + j]);
  return key;
}

template <class Ref>
__global__ void count_kmers(Ref table, const char* text, std::uint64_t kmers) {
  auto group = cg::tiled_partition<Ref::group_size>(cg::this_thread_block());
  const std::uint64_t i =
      (blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x) / Ref::group_size;
  if (i >= kmers) return;  // whole groups leave together: blockDim is a multiple of the group
  table.insert(group, kmer_at(text, i));
}

int main() {
  std::mt19937 random(7);
  std::string text(1 << 20, 'A');
  for (char& c : text) c = "ACGT"[random() % 4];
  const std::uint64_t kmers = text.size() - k + 1;

  mw::cuda::stream stream;
  mw::tables::CountingHashTable<std::uint32_t> table(kmers, {}, stream.get());
  auto d_text = to_device(std::vector<char>(text.begin(), text.end()));

  using Ref = decltype(table.ref());
  const unsigned block = 128;
  const unsigned grid = unsigned((kmers * Ref::group_size + block - 1) / block);
  count_kmers<<<grid, block, 0, stream.get()>>>(table.ref(), d_text.data(), kmers);
  mw::cuda::check(cudaGetLastError(), "count_kmers launch");

  std::map<std::uint32_t, std::uint32_t> expected;
  for (std::uint64_t i = 0; i < kmers; ++i) ++expected[kmer_at(text.data(), i)];

  const std::uint64_t distinct = table.size(stream.get());
  mw::cuda::device_buffer<std::uint32_t> d_keys(distinct), d_counts(distinct);
  expect(table.retrieve_all(d_keys.data(), d_counts.data(), stream.get()) == distinct,
         "retrieve_all returns size()");
  const auto keys = to_host(d_keys.data(), distinct);
  const auto counts = to_host(d_counts.data(), distinct);
  expect(distinct == expected.size(), "distinct k-mers");
  for (std::uint64_t i = 0; i < distinct; ++i) expect(expected[keys[i]] == counts[i], "a count");
  std::printf("device_kernel: %llu k-mers, %llu distinct, counts equal to a serial count\n",
              (unsigned long long)kmers, (unsigned long long)distinct);
  return 0;
}
