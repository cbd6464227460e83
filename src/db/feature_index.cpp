// FeatureIndex: consistency checks and the O(1) open-addressing lookup.
#include <algorithm>
#include <atomic>
#include <bit>
#include <stdexcept>
#include <string>

#include "db/database.hpp"
#include "metawarp/host/cores.hpp"
#include "metawarp/host/large_vector.hpp"
#include "metawarp/host/parallel_for.hpp"

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

// Below this many features one thread checks or builds faster than several.
constexpr std::size_t parallel_threshold = 1u << 20;

// The lookup's slots for n features: load factor between 3/8 and 3/4, short
// probe sequences at modest memory.
std::size_t lookup_capacity(std::size_t n) {
  return std::bit_ceil(std::max<std::size_t>(16, n + n / 3 + 1));
}

unsigned threads_for(std::size_t n) {
  return n < parallel_threshold ? 1u : std::min(host::usable_cores(), 16u);
}

}  // namespace

FeatureIndex::FeatureIndex(IndexArray<feature_t> features, IndexArray<std::uint64_t> offsets,
                           IndexArray<Location> locations)
    : features_(std::move(features)),
      offsets_(std::move(offsets)),
      locations_(std::move(locations)) {
  check_consistency();
}

// Moves allocate nothing: the moved-from index keeps no arrays and no lookup
// (lookup() stands in an empty one), so it finds nothing.
FeatureIndex::FeatureIndex(FeatureIndex&& other) noexcept
    : features_(std::move(other.features_)),
      offsets_(std::move(other.offsets_)),
      locations_(std::move(other.locations_)),
      lookup_(std::move(other.lookup_)) {
  other.features_.clear();
  other.offsets_.clear();
  other.locations_.clear();
}

FeatureIndex& FeatureIndex::operator=(FeatureIndex&& other) noexcept {
  if (this == &other) return *this;
  features_ = std::move(other.features_);
  offsets_ = std::move(other.offsets_);
  locations_ = std::move(other.locations_);
  lookup_ = std::move(other.lookup_);
  other.features_.clear();
  other.offsets_.clear();
  other.locations_.clear();
  return *this;
}

const FeatureIndex::Lookup& FeatureIndex::empty_lookup() {
  static Lookup empty;
  static const bool ready = [] {
    empty.slots.assign(2, 0);  // one empty slot: every probe ends at once
    empty.built.store(true);
    return true;
  }();
  (void)ready;
  return empty;
}

void FeatureIndex::check_consistency() const {
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
  // Ranges are checked in parallel (hundreds of millions of features after a
  // large build); the first problem in feature order is the one reported.
  const std::size_t n = features_.size();
  std::atomic<std::size_t> first_bad{n};
  host::parallel_ranges(n, threads_for(n), [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end && i < first_bad.load(std::memory_order_relaxed); ++i) {
      const bool bad = offsets_[i] > offsets_[i + 1] ||
                       offsets_[i + 1] - offsets_[i] > 0xffffffffu ||
                       (i > 0 && features_[i - 1] >= features_[i]);
      if (!bad) continue;
      for (std::size_t seen = first_bad.load(); i < seen && !first_bad.compare_exchange_weak(seen, i);) {
      }
      return;
    }
  });
  const std::size_t i = first_bad.load();
  if (i == n) return;
  if (offsets_[i] > offsets_[i + 1])
    throw std::invalid_argument("feature index: offsets decrease at feature " + std::to_string(i));
  if (offsets_[i + 1] - offsets_[i] > 0xffffffffu)  // the lookup stores lengths in 32 bits
    throw std::invalid_argument("feature index: more than 2^32-1 locations at feature " +
                                std::to_string(i));
  throw std::invalid_argument("feature index: features not strictly ascending at " +
                              std::to_string(i));
}

std::size_t FeatureIndex::lookup_bytes_for(std::size_t features) {
  return 2 * lookup_capacity(features) * sizeof(std::uint64_t);
}

void FeatureIndex::build_lookup() const {
  std::call_once(lookup_->once, [this] {
    Lookup& l = *lookup_;
    const std::size_t n = features_.size();
    const std::size_t capacity = lookup_capacity(n);
    l.slots = host::make_large_vector<std::uint64_t>(2 * capacity);
    l.mask = capacity - 1;
    std::uint64_t* slots = l.slots.data();
    const std::uint64_t mask = l.mask;
    const unsigned threads = threads_for(n);
    // Features are distinct, so concurrent inserts never race for the same
    // key; the slot layout may depend on timing, lookups do not.
    host::parallel_ranges(n, threads, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) {
        const std::uint64_t length = offsets_[i + 1] - offsets_[i];
        if (length == 0) continue;
        const std::uint64_t key = slot_key(features_[i], length);
        std::uint64_t slot = slot_of(features_[i], mask);
        for (;; slot = (slot + 1) & mask) {
          if (threads == 1) {
            if (slots[2 * slot] != 0) continue;
            slots[2 * slot] = key;
            break;
          }
          std::uint64_t expected = 0;
          if (std::atomic_ref<std::uint64_t>(slots[2 * slot])
                  .compare_exchange_strong(expected, key, std::memory_order_relaxed))
            break;
        }
        // The slot is ours now, so is its offset word; readers come after
        // the join and the release below.
        slots[2 * slot + 1] = offsets_[i];
      }
    });
    l.built.store(true, std::memory_order_release);
  });
}

std::span<const Location> FeatureIndex::find(feature_t f) const {
  return list(probe(f));
}

void FeatureIndex::prefetch(feature_t f) const {
  const Lookup& l = lookup();
  __builtin_prefetch(&l.slots[2 * slot_of(f, l.mask)]);
}

std::uint64_t FeatureIndex::probe(feature_t f) const {
  const Lookup& l = lookup();
  const std::uint64_t* slots = l.slots.data();
  for (std::uint64_t slot = slot_of(f, l.mask);; slot = (slot + 1) & l.mask) {
    const std::uint64_t key = slots[2 * slot];
    if (key == 0) return 0;
    if (feature_t(key >> 32) == f) {
      const Location* begin = locations_.data() + slots[2 * slot + 1];
      const std::uint32_t length = std::uint32_t(key);
      __builtin_prefetch(begin);
      if (length > 8) __builtin_prefetch(begin + 8);
      return slot + 1;
    }
  }
}

std::span<const Location> FeatureIndex::list(std::uint64_t handle) const {
  if (handle == 0) return {};
  const std::uint64_t* slot = lookup().slots.data() + 2 * (std::size_t(handle) - 1);
  return {locations_.data() + slot[1], std::size_t(std::uint32_t(slot[0]))};
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
