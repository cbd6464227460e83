#pragma once
// BloomFilter: a blocked Bloom filter whose blocks are BlockWords 64-bit
// words: 4 (default) = one 32-byte memory sector (256 bits), so an insert or a
// query touches exactly one sector; 1 = one word, so an insert is one atomicOr
// (issue 14: a 2 GiB filter's add is bound by its atomics, measured 13.1 G/s
// at 1 per key, 10.0 at 4) at a higher false-positive rate (k bits share 64;
// expected_false_positive_rate says how much).
// The block and all k bit positions come from one 64-bit hash: the high 32
// bits pick the block (multiply-shift range reduction), the low 16 bits give
// a start a and an odd step b, and position i is (a + i*b) mod block bits
// (distinct for i < block bits because b is odd).
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/tables/hashers.hpp"
#include "metawarp/tables/launch.cuh"

namespace metawarp::tables {

template <class K, class Hasher = MurmurHasher, int BlockWords = 4>
class BloomFilter {
 public:
  static_assert(BlockWords == 1 || BlockWords == 2 || BlockWords == 4,
                "a block is 1, 2 or 4 words (at most one 32-byte sector)");
  using key_type = K;
  static constexpr int block_words = BlockWords;
  static constexpr std::uint32_t block_bits = 64 * BlockWords;
  struct alignas(8 * BlockWords) Block {
    unsigned long long words[block_words];
  };

  struct Ref {
    Block* blocks = nullptr;
    std::uint64_t num_blocks = 0;
    std::uint32_t num_hashes = 0;
    Hasher hasher{};

    // The block index of `key`, and its mask as BlockWords words in registers.
    __device__ __forceinline__ std::uint64_t mask_of(K key,
                                                     unsigned long long (&mask)[block_words]) const {
      const std::uint64_t h = hasher(std::uint64_t(key));
      const std::uint32_t a = std::uint32_t(h) & (block_bits - 1);
      const std::uint32_t b = ((std::uint32_t(h) >> 8) & (block_bits - 1)) | 1u;
#pragma unroll
      for (int w = 0; w < block_words; ++w) mask[w] = 0;
      for (std::uint32_t i = 0; i < num_hashes; ++i) {
        const std::uint32_t pos = (a + i * b) & (block_bits - 1);
#pragma unroll
        for (int w = 0; w < block_words; ++w) {
          mask[w] |= (pos >> 6) == std::uint32_t(w) ? (1ull << (pos & 63u)) : 0ull;
        }
      }
      return ((h >> 32) * num_blocks) >> 32;
    }
    // One thread per key: at most BlockWords 64-bit atomicOr into one block.
    // No read first to skip words that hold their bits already: on an H100
    // (2 GiB filter, bench_tables `bloom-atomics`) 4 atomics per key ran
    // 10.0 G/s bare and 4.1 G/s with the read, a dependent round trip each.
    __device__ void insert(K key) const {
      unsigned long long mask[block_words];
      Block& block = blocks[mask_of(key, mask)];
#pragma unroll
      for (int w = 0; w < block_words; ++w) {
        if (mask[w] != 0) atomicOr(&block.words[w], mask[w]);
      }
    }
    __device__ bool contains(K key) const {
      unsigned long long mask[block_words];
      const Block* block = blocks + mask_of(key, mask);
      bool all = true;
      if constexpr (BlockWords == 1) {
        all = (block->words[0] & mask[0]) == mask[0];
      } else {
#pragma unroll
        for (int w = 0; w < block_words; w += 2) {  // 16-byte loads
          const ulonglong2 two = reinterpret_cast<const ulonglong2*>(block)[w / 2];
          all &= ((two.x & mask[w]) == mask[w]) & ((two.y & mask[w + 1]) == mask[w + 1]);
        }
      }
      return all;
    }
  };

  // num_bits is rounded up to whole blocks; 1 <= num_hashes <= 32.
  BloomFilter(std::uint64_t num_bits, std::uint32_t num_hashes, std::uint64_t seed,
              cudaStream_t stream)
      : blocks_(checked_blocks(num_bits, num_hashes)), num_hashes_(num_hashes), hasher_(seed) {
    clear(stream);
  }

  Ref ref() const { return Ref{blocks_.data(), blocks_.size(), num_hashes_, hasher_}; }
  std::uint64_t num_bits() const { return blocks_.size() * block_bits; }
  std::uint64_t bytes() const { return blocks_.size_bytes(); }
  std::uint32_t num_hashes() const { return num_hashes_; }

  void insert(const K* keys, std::uint64_t n, cudaStream_t stream) {
    const Ref r = ref();
    launch_thread_per_item(n, stream, [=] __device__(std::uint64_t i, bool valid) {
      if (valid) r.insert(keys[i]);
    }, "BloomFilter::insert");
  }
  void contains(const K* keys, std::uint64_t n, bool* out, cudaStream_t stream) const {
    const Ref r = ref();
    launch_thread_per_item(n, stream, [=] __device__(std::uint64_t i, bool valid) {
      if (valid) out[i] = r.contains(keys[i]);
    }, "BloomFilter::contains");
  }
  void clear(cudaStream_t stream) { blocks_.fill_bytes(0, stream); }

  // Expected false-positive rate after n distinct inserts (blocked-filter
  // approximation: per-block Poisson load, standard formula inside a block).
  double expected_false_positive_rate(std::uint64_t n) const {
    const double per_block = double(n) / double(blocks_.size());
    double rate = 0;
    double poisson = std::exp(-per_block);  // P(load = 0)
    for (int load = 0; load < 200; ++load) {
      rate += poisson * std::pow(1 - std::pow(1 - 1.0 / block_bits, double(num_hashes_) * load),
                                 double(num_hashes_));
      poisson *= per_block / (load + 1);
    }
    return rate;
  }

 private:
  static std::uint64_t checked_blocks(std::uint64_t num_bits, std::uint32_t num_hashes) {
    if (num_hashes == 0 || num_hashes > 32) {
      throw std::invalid_argument("BloomFilter needs 1..32 hash positions, got " +
                                  std::to_string(num_hashes));
    }
    const std::uint64_t blocks = (num_bits + block_bits - 1) / block_bits;
    if (blocks == 0 || blocks >= (std::uint64_t(1) << 32)) {
      throw std::invalid_argument("BloomFilter size of " + std::to_string(num_bits) +
                                  " bits is outside 1 .. 2^32 blocks of " +
                                  std::to_string(block_bits));
    }
    return blocks;
  }

  cuda::device_buffer<Block> blocks_;
  std::uint32_t num_hashes_;
  Hasher hasher_;
};

}  // namespace metawarp::tables
