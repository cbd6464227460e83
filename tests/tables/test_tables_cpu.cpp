// Host-side logic of the hash-table library: probing sequences, capacity
// rounding, hashers, status flags and the bucket list's handle and growth.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <set>
#include <vector>

#include "catch.hpp"
#include "metawarp/tables/bucket_list_layout.hpp"
#include "metawarp/tables/hashers.hpp"
#include "metawarp/tables/probing.hpp"
#include "metawarp/tables/status.hpp"

using namespace metawarp::tables;

namespace {

bool brute_force_prime(std::uint64_t n) {
  if (n < 2) return false;
  for (std::uint64_t d = 2; d < n; ++d) {
    if (n % d == 0) return false;
  }
  return true;
}

template <class Probing>
std::vector<std::uint32_t> probe_windows(std::uint64_t hash, std::uint32_t windows,
                                         std::uint32_t steps) {
  Probing seq(hash, windows);
  std::vector<std::uint32_t> visited;
  for (std::uint32_t i = 0; i < steps; ++i, seq.advance()) visited.push_back(seq.window());
  return visited;
}

}  // namespace

TEST_CASE("primality and capacity rounding") {
  for (std::uint64_t n = 0; n < 2000; ++n) CHECK(is_prime(n) == brute_force_prime(n));
  CHECK(next_prime(4294967291ull - 10) == 4294967291ull);  // largest 32-bit prime
  for (std::uint32_t window : {1u, 2u, 4u, 8u, 16u, 32u}) {
    for (std::uint64_t requested : {0ull, 1ull, 7ull, 100ull, 1000ull, 123457ull}) {
      const std::uint64_t windows = windows_for_capacity(requested, window);
      CHECK(brute_force_prime(windows));
      CHECK(windows >= 3);
      CHECK(windows * window >= requested);
      // The smallest prime that fits: no prime between the needed count and it.
      const std::uint64_t needed = std::max<std::uint64_t>(3, (requested + window - 1) / window);
      for (std::uint64_t w = needed; w < windows; ++w) CHECK_FALSE(brute_force_prime(w));
    }
  }
}

TEST_CASE("double hashing visits every window exactly once per cycle") {
  const std::uint32_t windows = GENERATE(values({3u, 5u, 7u, 101u, 1009u}));
  for (std::uint64_t hash :
       {0ull, 1ull, 0xffffffffull, 0xdeadbeefcafebabeull, ~0ull, 12345678901234ull}) {
    const auto visited = probe_windows<DoubleHashing>(hash, windows, 2 * windows);
    std::set<std::uint32_t> first_cycle(visited.begin(), visited.begin() + windows);
    CHECK(first_cycle.size() == windows);  // no window twice within p steps
    CHECK(*first_cycle.rbegin() < windows);
    // ... and the sequence then repeats (it is a single cycle of length p).
    CHECK(std::equal(visited.begin(), visited.begin() + windows, visited.begin() + windows));
    // Compare with the definition w_i = (a + i*b) mod p, b in [1, p-1].
    const std::uint64_t a = std::uint32_t(hash) % windows;
    const std::uint64_t b = 1 + std::uint32_t(hash >> 32) % (windows - 1);
    for (std::uint32_t i = 0; i < windows; ++i) CHECK(visited[i] == (a + i * b) % windows);
  }
}

TEST_CASE("double hashing step arithmetic does not overflow near 2^32 windows") {
  const std::uint32_t windows = 4294967291u;  // prime
  const std::uint64_t hash = 0xfffffff0fffffff0ull;
  const auto visited = probe_windows<DoubleHashing>(hash, windows, 50);
  const std::uint64_t a = std::uint32_t(hash) % windows;
  const std::uint64_t b = 1 + std::uint32_t(hash >> 32) % (windows - 1);
  for (std::uint32_t i = 0; i < 50; ++i) CHECK(visited[i] == (a + i * b) % windows);
}

TEST_CASE("linear probing visits consecutive windows and wraps") {
  const auto visited = probe_windows<LinearProbing>(9, 7, 14);
  for (std::uint32_t i = 0; i < 14; ++i) CHECK(visited[i] == (2 + i) % 7);
}

TEST_CASE("hash finalisers are bijections with avalanche, seeds give different functions") {
  // fmix32 is a bijection: no collisions on a contiguous range.
  std::set<std::uint32_t> images;
  for (std::uint32_t k = 0; k < 100000; ++k) images.insert(fmix32(k));
  CHECK(images.size() == 100000);
  CHECK(fmix32(0) == 0);  // known property of the Murmur finaliser
  CHECK(fmix64(0) == 0);

  // Avalanche: flipping one input bit flips about half the output bits.
  const auto average_flips = [](auto hash, int bits) {
    double total = 0;
    int samples = 0;
    for (std::uint64_t k = 1; k < 2000; ++k) {
      const std::uint64_t key = k * 0x9e3779b97f4a7c15ull;
      for (int b = 0; b < bits; ++b) {
        total += std::popcount(std::uint64_t(hash(key) ^ hash(key ^ (std::uint64_t(1) << b))));
        ++samples;
      }
    }
    return total / samples;
  };
  CHECK(std::abs(average_flips([](std::uint64_t k) { return fmix64(k); }, 64) - 32) < 1.0);
  CHECK(std::abs(average_flips([](std::uint64_t k) { return xxmix64(k); }, 64) - 32) < 1.0);
  CHECK(std::abs(average_flips([](std::uint64_t k) { return std::uint64_t(fmix32(std::uint32_t(k))); }, 32) - 16) < 0.5);

  MurmurHasher m0(0), m1(1);
  Murmur32Hasher h0(0), h1(1);
  XxHasher x0(0), x1(1);
  int same_m = 0, same_h = 0, same_x = 0;
  for (std::uint64_t k = 0; k < 1000; ++k) {
    same_m += m0(k) == m1(k);
    same_h += h0(k) == h1(k);
    same_x += x0(k) == x1(k);
    CHECK(m0(k) == MurmurHasher(0)(k));  // deterministic
  }
  CHECK(same_m == 0);
  CHECK(same_h == 0);
  CHECK(same_x == 0);
}

TEST_CASE("status separates errors from warnings") {
  const Status ok;
  CHECK(ok.ok());
  const Status full(Status::table_full);
  CHECK(full.has_error());
  CHECK_FALSE(full.has_warning());
  const Status dup(Status::duplicate_key);
  CHECK(dup.has_warning());
  CHECK_FALSE(dup.has_error());
  const Status both = full | dup;
  CHECK(both.has(Status::table_full));
  CHECK(both.has(Status::duplicate_key));
  CHECK((Status::error_mask & Status::warning_mask) == 0);
}

TEST_CASE("list handle packs offset, count and state without overlap") {
  const std::uint64_t offsets[] = {0, 1, 12345, ListHandle::max_offset};
  const std::uint64_t counts[] = {0, 1, 777, ListHandle::max_count};
  for (std::uint64_t offset : offsets) {
    for (std::uint64_t count : counts) {
      for (auto state : {ListHandle::uninitialized, ListHandle::blocked, ListHandle::ready}) {
        const ListHandle h = ListHandle::make(offset, count, state);
        CHECK(h.offset() == offset);
        CHECK(h.count() == count);
        CHECK(h.state() == state);
        const ListHandle b = h.with_state(ListHandle::blocked);
        CHECK(b.offset() == offset);
        CHECK(b.count() == count);
        CHECK(b.state() == ListHandle::blocked);
      }
    }
  }
  CHECK(ListHandle{}.state() == ListHandle::uninitialized);
  CHECK(ListHandle{}.count() == 0);
}

TEST_CASE("bucket growth follows s_i = min(max, ceil(lambda * s_{i-1}))") {
  const std::uint32_t first = GENERATE(values({1u, 3u, 8u}));
  const double lambda = GENERATE(values({1.0, 1.1, 2.0}));
  const std::uint32_t max_size = 64;
  const BucketGrowth growth(first, lambda, max_size);
  // Reference: walk value indices one by one through explicit buckets.
  std::uint64_t size = first, bucket = 0, slot = 0;
  for (std::uint64_t n = 0; n < 5000; ++n) {
    if (slot == size) {
      ++bucket;
      slot = 0;
      if (bucket < BucketGrowth::max_stages) {  // tabulation stops after max_stages
        size = std::min<std::uint64_t>(max_size, std::uint64_t(std::ceil(lambda * double(size))));
      }
    }
    const auto at = growth.locate(n);
    REQUIRE(at.bucket == bucket);
    REQUIRE(at.slot == slot);
    REQUIRE(at.capacity == size);
    REQUIRE(growth.bucket_size(bucket) == size);
    ++slot;
  }
  // words_for: buckets touched by a list of n values, plus one header per bucket after the first.
  for (std::uint64_t n : {0ull, 1ull, 2ull, 7ull, 100ull, 4999ull}) {
    std::uint64_t words = 0;
    if (n > 0) {
      const auto last = growth.locate(n - 1);
      for (std::uint64_t b = 0; b <= last.bucket; ++b) words += growth.bucket_size(b) + (b > 0);
    }
    CHECK(growth.words_for(n) == words);
  }
  CHECK_THROWS_AS(BucketGrowth(0, 2.0, 8), std::invalid_argument);
  CHECK_THROWS_AS(BucketGrowth(4, 0.5, 8), std::invalid_argument);
  CHECK_THROWS_AS(BucketGrowth(16, 2.0, 8), std::invalid_argument);
}
