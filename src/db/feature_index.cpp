// FeatureIndex: consistency checks and the O(1) open-addressing lookup.
#include <algorithm>
#include <atomic>
#include <bit>
#include <stdexcept>
#include <string>
#include <thread>

#ifdef __linux__
#include <sys/mman.h>
#endif

#include "db/database.hpp"

namespace metawarp::db {
namespace {

// Features are hashes already, but a multiplicative mix keeps the probe
// sequence well spread even for structured inputs (tests, toy data).
std::uint64_t slot_of(feature_t f, std::uint64_t mask) {
  return (std::uint64_t(f) * 0x9E3779B97F4A7C15ull >> 32) & mask;
}

// A slot is two words: (feature << 32 | list length) and the list's offset.
// Keeping the list bounds in the slot saves a dependent load from offsets_
// per lookup; length 0 marks an empty slot (features with empty lists are
// left out: find() returns an empty span for them either way).
std::uint64_t slot_key(feature_t f, std::uint64_t length) {
  return (std::uint64_t(f) << 32) | length;
}

// Asks for transparent huge pages on [data, data + bytes): the lookup is
// probed at random, and with 4 KiB pages nearly every probe misses the TLB.
// Must run before the memory is first touched. A hint only.
void advise_huge_pages(void* data, std::size_t bytes) {
#ifdef __linux__
  constexpr std::uintptr_t huge = std::uintptr_t(2) << 20;
  const std::uintptr_t begin = (std::uintptr_t(data) + huge - 1) & ~(huge - 1);
  const std::uintptr_t end = (std::uintptr_t(data) + bytes) & ~(huge - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

// Below this many features one thread builds the lookup faster than several.
constexpr std::size_t parallel_lookup_threshold = 1u << 20;

}  // namespace

FeatureIndex::FeatureIndex(std::vector<feature_t> features, std::vector<std::uint64_t> offsets,
                           std::vector<Location> locations)
    : features_(std::move(features)),
      offsets_(std::move(offsets)),
      locations_(std::move(locations)) {
  if (features_.size() >= 0xffffffffu)
    throw std::invalid_argument("feature index: too many features (" +
                                std::to_string(features_.size()) + ")");
  if (offsets_.size() != features_.size() + 1)
    throw std::invalid_argument("feature index: " + std::to_string(offsets_.size()) +
                                " offsets for " + std::to_string(features_.size()) +
                                " features (expected features + 1)");
  if (offsets_.front() != 0 || offsets_.back() != locations_.size())
    throw std::invalid_argument("feature index: offsets do not span the " +
                                std::to_string(locations_.size()) + " locations");
  for (std::size_t i = 0; i < features_.size(); ++i) {
    if (offsets_[i] > offsets_[i + 1])
      throw std::invalid_argument("feature index: offsets decrease at feature " +
                                  std::to_string(i));
    if (offsets_[i + 1] - offsets_[i] > 0xffffffffu)  // the lookup stores lengths in 32 bits
      throw std::invalid_argument("feature index: more than 2^32-1 locations at feature " +
                                  std::to_string(i));
    if (i > 0 && features_[i - 1] >= features_[i])
      throw std::invalid_argument("feature index: features not strictly ascending at " +
                                  std::to_string(i));
  }
  build_lookup();
}

void FeatureIndex::build_lookup() {
  // Load factor between 3/8 and 3/4: short probe sequences, modest memory.
  const std::size_t n = features_.size();
  const std::size_t capacity = std::bit_ceil(std::max<std::size_t>(16, n + n / 3 + 1));
  lookup_.clear();
  lookup_.shrink_to_fit();
  lookup_.reserve(2 * capacity);
  advise_huge_pages(lookup_.data(), 2 * capacity * sizeof(std::uint64_t));
  lookup_.assign(2 * capacity, 0);
  lookup_mask_ = capacity - 1;

  auto insert_range = [this](std::size_t begin, std::size_t end, bool concurrent) {
    for (std::size_t i = begin; i < end; ++i) {
      const std::uint64_t length = offsets_[i + 1] - offsets_[i];
      if (length == 0) continue;
      const std::uint64_t key = slot_key(features_[i], length);
      std::uint64_t slot = slot_of(features_[i], lookup_mask_);
      for (;; slot = (slot + 1) & lookup_mask_) {
        if (!concurrent) {
          if (lookup_[2 * slot] != 0) continue;
          lookup_[2 * slot] = key;
          break;
        }
        std::uint64_t expected = 0;
        if (std::atomic_ref<std::uint64_t>(lookup_[2 * slot])
                .compare_exchange_strong(expected, key, std::memory_order_relaxed))
          break;
      }
      // The slot is ours now, so is its offset word; readers come after the join.
      lookup_[2 * slot + 1] = offsets_[i];
    }
  };

  const unsigned threads =
      n < parallel_lookup_threshold ? 1u : std::clamp(std::thread::hardware_concurrency(), 1u, 16u);
  if (threads == 1) {
    insert_range(0, n, false);
    return;
  }
  // Features are distinct, so concurrent inserts never race for the same key;
  // the slot layout may depend on timing, lookups do not.
  std::vector<std::jthread> workers;
  for (unsigned t = 0; t < threads; ++t)
    workers.emplace_back(insert_range, n * t / threads, n * (t + 1) / threads, true);
}

std::span<const Location> FeatureIndex::find(feature_t f) const {
  return list(probe(f));
}

void FeatureIndex::prefetch(feature_t f) const {
  if (!lookup_.empty()) __builtin_prefetch(&lookup_[2 * slot_of(f, lookup_mask_)]);
}

std::uint64_t FeatureIndex::probe(feature_t f) const {
  if (lookup_.empty()) return 0;
  for (std::uint64_t slot = slot_of(f, lookup_mask_);; slot = (slot + 1) & lookup_mask_) {
    const std::uint64_t key = lookup_[2 * slot];
    if (key == 0) return 0;
    if (feature_t(key >> 32) == f) {
      const Location* begin = locations_.data() + lookup_[2 * slot + 1];
      const std::uint32_t length = std::uint32_t(key);
      __builtin_prefetch(begin);
      if (length > 8) __builtin_prefetch(begin + 8);
      return slot + 1;
    }
  }
}

std::span<const Location> FeatureIndex::list(std::uint64_t handle) const {
  if (handle == 0) return {};
  const std::size_t slot = std::size_t(handle) - 1;
  return {locations_.data() + lookup_[2 * slot + 1], std::size_t(std::uint32_t(lookup_[2 * slot]))};
}

void FeatureIndex::find_many(const feature_t* features, std::size_t n,
                             std::span<const Location>* out) const {
  // Stages of `chunk` features: each stage touches memory prefetched by the
  // previous one, so a read's misses overlap (one read pair is ~64 features).
  constexpr std::size_t chunk = 64;
  std::uint64_t handles[chunk];
  for (std::size_t base = 0; base < n; base += chunk) {
    const std::size_t m = std::min(chunk, n - base);
    const feature_t* f = features + base;
    for (std::size_t i = 0; i < m; ++i) prefetch(f[i]);
    for (std::size_t i = 0; i < m; ++i) handles[i] = probe(f[i]);
    for (std::size_t i = 0; i < m; ++i) out[base + i] = list(handles[i]);
  }
}

}  // namespace metawarp::db
