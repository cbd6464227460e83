// FeatureIndex: consistency checks and the O(1) open-addressing lookup.
#include <algorithm>
#include <atomic>
#include <bit>
#include <stdexcept>
#include <string>
#include <thread>

#include "db/database.hpp"

namespace metawarp::db {
namespace {

// Features are hashes already, but a multiplicative mix keeps the probe
// sequence well spread even for structured inputs (tests, toy data).
std::uint64_t slot_of(feature_t f, std::uint64_t mask) {
  return (std::uint64_t(f) * 0x9E3779B97F4A7C15ull >> 32) & mask;
}

std::uint64_t slot_value(feature_t f, std::size_t index) {
  return (std::uint64_t(f) << 32) | std::uint64_t(index + 1);
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
  lookup_.assign(capacity, 0);
  lookup_mask_ = capacity - 1;

  auto insert_range = [this](std::size_t begin, std::size_t end, bool concurrent) {
    for (std::size_t i = begin; i < end; ++i) {
      const std::uint64_t value = slot_value(features_[i], i);
      std::uint64_t slot = slot_of(features_[i], lookup_mask_);
      for (;; slot = (slot + 1) & lookup_mask_) {
        if (!concurrent) {
          if (lookup_[slot] == 0) {
            lookup_[slot] = value;
            break;
          }
          continue;
        }
        std::uint64_t expected = 0;
        if (std::atomic_ref<std::uint64_t>(lookup_[slot])
                .compare_exchange_strong(expected, value, std::memory_order_relaxed))
          break;
      }
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
  if (lookup_.empty()) return {};
  for (std::uint64_t slot = slot_of(f, lookup_mask_);; slot = (slot + 1) & lookup_mask_) {
    const std::uint64_t v = lookup_[slot];
    if (v == 0) return {};
    if (feature_t(v >> 32) == f) {
      const std::size_t i = std::size_t(v & 0xffffffffu) - 1;
      return {locations_.data() + offsets_[i], locations_.data() + offsets_[i + 1]};
    }
  }
}

}  // namespace metawarp::db
