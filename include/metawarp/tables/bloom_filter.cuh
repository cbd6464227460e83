#pragma once
// BloomFilter: a blocked Bloom filter whose blocks are one 32-byte memory
// sector (256 bits), so an insert or a query touches exactly one sector.
// The block and all k bit positions come from one 64-bit hash: the high 32
// bits pick the block (multiply-shift range reduction), the low 16 bits give
// a start a and an odd step b, and position i is (a + i*b) mod 256 (distinct
// for i < 256 because b is odd).
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/tables/hashers.hpp"
#include "metawarp/tables/launch.cuh"

namespace metawarp::tables {

template <class K, class Hasher = MurmurHasher>
class BloomFilter {
 public:
  static constexpr int block_words = 4;  // 4 x 64 bits = one 32-byte sector
  struct alignas(32) Block {
    unsigned long long words[block_words];
  };

  struct Ref {
    Block* blocks = nullptr;
    std::uint64_t num_blocks = 0;
    std::uint32_t num_hashes = 0;
    Hasher hasher{};

    // The block index of `key`, and its 256-bit mask as 4 words in registers.
    __device__ __forceinline__ std::uint64_t mask_of(K key,
                                                     unsigned long long (&mask)[block_words]) const {
      const std::uint64_t h = hasher(std::uint64_t(key));
      const std::uint32_t a = std::uint32_t(h) & 255u;
      const std::uint32_t b = ((std::uint32_t(h) >> 8) & 255u) | 1u;
#pragma unroll
      for (int w = 0; w < block_words; ++w) mask[w] = 0;
      for (std::uint32_t i = 0; i < num_hashes; ++i) {
        const std::uint32_t pos = (a + i * b) & 255u;
#pragma unroll
        for (int w = 0; w < block_words; ++w) {
          mask[w] |= (pos >> 6) == std::uint32_t(w) ? (1ull << (pos & 63u)) : 0ull;
        }
      }
      return ((h >> 32) * num_blocks) >> 32;
    }
    // One thread per key: at most 4 64-bit atomicOr into one sector, skipped
    // for words that already hold their bits.
    __device__ void insert(K key) const {
      unsigned long long mask[block_words];
      Block& block = blocks[mask_of(key, mask)];
#pragma unroll
      for (int w = 0; w < block_words; ++w) {
        if (mask[w] != 0 && (block.words[w] & mask[w]) != mask[w]) atomicOr(&block.words[w], mask[w]);
      }
    }
    __device__ bool contains(K key) const {
      unsigned long long mask[block_words];
      const Block* block = blocks + mask_of(key, mask);
      const ulonglong2 lo = reinterpret_cast<const ulonglong2*>(block)[0];  // one 32-byte sector
      const ulonglong2 hi = reinterpret_cast<const ulonglong2*>(block)[1];
      return ((lo.x & mask[0]) == mask[0]) & ((lo.y & mask[1]) == mask[1]) &
             ((hi.x & mask[2]) == mask[2]) & ((hi.y & mask[3]) == mask[3]);
    }
  };

  // num_bits is rounded up to whole 256-bit blocks; 1 <= num_hashes <= 32.
  BloomFilter(std::uint64_t num_bits, std::uint32_t num_hashes, std::uint64_t seed,
              cudaStream_t stream)
      : blocks_(checked_blocks(num_bits, num_hashes)), num_hashes_(num_hashes), hasher_(seed) {
    clear(stream);
  }

  Ref ref() const { return Ref{blocks_.data(), blocks_.size(), num_hashes_, hasher_}; }
  std::uint64_t num_bits() const { return blocks_.size() * 256; }
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
      rate += poisson * std::pow(1 - std::pow(1 - 1.0 / 256, double(num_hashes_) * load),
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
    const std::uint64_t blocks = (num_bits + 255) / 256;
    if (blocks == 0 || blocks >= (std::uint64_t(1) << 32)) {
      throw std::invalid_argument("BloomFilter size of " + std::to_string(num_bits) +
                                  " bits is outside 1 .. 2^40");
    }
    return blocks;
  }

  cuda::device_buffer<Block> blocks_;
  std::uint32_t num_hashes_;
  Hasher hasher_;
};

}  // namespace metawarp::tables
