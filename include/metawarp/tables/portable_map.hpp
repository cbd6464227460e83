#pragma once
// PortableMap: the host path of the portable linear-probing map, usable like
// std::unordered_map from serial host code and compiled by any C++20
// compiler (no CUDA needed). Its slot array has the same format and positions
// as the device map (portable_map.cuh: DevicePortableMap), so a map can be
// filled on the host, uploaded, updated in bulk on a stream and downloaded.
//
// Linear probing from the Fibonacci-hashed home slot of a power-of-two table.
// Erase leaves a tombstone; inserts claim only empty slots (after proving the
// key absent up to the first empty slot), so tombstones are reclaimed by
// clean_tombstones(): displaced entries are taken out, tombstones become empty
// and the taken entries are reinserted (no full rehash). Not thread-safe.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "metawarp/tables/portable_map_rules.hpp"
#include "metawarp/tables/status.hpp"

namespace metawarp::tables {

template <class K, class V>
class PortableMap {
 public:
  using key_type = K;
  using value_type = V;
  using slot_type = PortableSlot<K, V>;
  using sentinels = KeySentinels<K>;

  explicit PortableMap(std::uint64_t min_capacity = 16, PortableMapOptions options = {})
      : options_(options) {
    reset(portable_power_for(min_capacity, 1.0));
  }

  // A map over slots copied from a device map (same size power).
  static PortableMap from_slots(std::vector<slot_type> slots, int size_power,
                                PortableMapOptions options) {
    if (slots.size() != (std::uint64_t(1) << size_power)) {
      throw std::invalid_argument("portable map slots do not match the size power");
    }
    PortableMap map(2, options);
    map.slots_ = std::move(slots);
    map.power_ = size_power;
    map.recount();
    return map;
  }

  // Inserts (key, value) if key is absent. Status: ok, duplicate_key (present:
  // value left alone) or invalid_key (a sentinel).
  Status insert(K key, V value) { return put(key, value, /*assign=*/false); }
  // Inserts or overwrites (like std::unordered_map::insert_or_assign).
  Status insert_or_assign(K key, V value) { return put(key, value, /*assign=*/true); }

  std::optional<V> find(K key) const {
    const std::uint64_t slot = find_slot(key);
    if (slot == npos) return std::nullopt;
    return slots_[slot].value;
  }
  bool contains(K key) const { return find_slot(key) != npos; }

  // Replaces the key by a tombstone; false if absent.
  bool erase(K key) {
    const std::uint64_t slot = find_slot(key);
    if (slot == npos) return false;
    slots_[slot] = slot_type{sentinels::tombstone, V{}};
    --size_;
    ++tombstones_;
    return true;
  }

  // Hashinator's cleanup, serially: take out every entry not at its home
  // slot, turn tombstones into empty slots, reinsert what was taken out.
  void clean_tombstones() {
    std::vector<slot_type> displaced;
    for (std::uint64_t i = 0; i < slots_.size(); ++i) {
      const K k = slots_[i].key;
      if (k == sentinels::tombstone ||
          (sentinels::is_valid(k) && probe_distance(i, home(k), mask()) != 0)) {
        if (k != sentinels::tombstone) displaced.push_back(slots_[i]);
        slots_[i] = slot_type{sentinels::empty, V{}};
      }
    }
    size_ -= displaced.size();
    tombstones_ = 0;
    max_distance_ = 0;
    for (const slot_type& s : displaced) place(s.key, s.value);
  }

  // Rebuilds into 2^size_power slots (>= size()), dropping tombstones.
  void rehash(int size_power) {
    if (size_power < portable_min_power || size_power > portable_max_power ||
        (std::uint64_t(1) << size_power) <= size_) {
      throw std::invalid_argument("portable map rehash to a size power that cannot hold it");
    }
    std::vector<slot_type> old = std::move(slots_);
    reset(size_power);
    for (const slot_type& s : old) {
      if (sentinels::is_valid(s.key)) place(s.key, s.value);
    }
  }

  // Calls f(key, value) for every stored pair, in slot order.
  template <class F>
  void for_each(F&& f) const {
    for (const slot_type& s : slots_) {
      if (sentinels::is_valid(s.key)) f(s.key, s.value);
    }
  }

  void clear() { reset(power_); }

  std::uint64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::uint64_t tombstones() const { return tombstones_; }
  std::uint64_t capacity() const { return slots_.size(); }
  int size_power() const { return power_; }
  double load_factor() const { return double(size_) / double(capacity()); }
  // Longest distance of an entry from its home slot (Hashinator's overflow).
  std::uint64_t max_distance() const { return max_distance_; }
  const std::vector<slot_type>& slots() const { return slots_; }
  const PortableMapOptions& options() const { return options_; }

 private:
  static constexpr std::uint64_t npos = ~std::uint64_t(0);

  std::uint64_t mask() const { return slots_.size() - 1; }
  std::uint64_t home(K key) const { return fibonacci_home(std::uint64_t(key), power_); }

  void reset(int size_power) {
    power_ = size_power;
    slots_.assign(std::uint64_t(1) << size_power, slot_type{sentinels::empty, V{}});
    size_ = tombstones_ = max_distance_ = 0;
  }

  void recount() {
    size_ = tombstones_ = max_distance_ = 0;
    for (std::uint64_t i = 0; i < slots_.size(); ++i) {
      const K k = slots_[i].key;
      if (k == sentinels::tombstone) ++tombstones_;
      if (!sentinels::is_valid(k)) continue;
      ++size_;
      max_distance_ = std::max(max_distance_, probe_distance(i, home(k), mask()));
    }
  }

  // Walks the probe line to the key or the first empty slot.
  std::uint64_t find_slot(K key) const {
    if (!sentinels::is_valid(key)) return npos;
    const std::uint64_t start = home(key);
    for (std::uint64_t d = 0; d < slots_.size(); ++d) {
      const std::uint64_t i = (start + d) & mask();
      if (slots_[i].key == key) return i;
      if (slots_[i].key == sentinels::empty) return npos;
    }
    return npos;
  }

  Status put(K key, V value, bool assign) {
    if (!sentinels::is_valid(key)) return Status(Status::invalid_key);
    const std::uint64_t existing = find_slot(key);
    if (existing != npos) {
      if (assign) slots_[existing].value = value;
      return assign ? Status() : Status(Status::duplicate_key);
    }
    switch (plan_room(size_, tombstones_, 1, capacity(), options_)) {
      case RoomAction::grow:
        rehash(std::max(power_ + 1, portable_power_for(size_ + 1, options_.grow_load_factor)));
        break;
      case RoomAction::clean_tombstones: clean_tombstones(); break;
      case RoomAction::none: break;
    }
    place(key, value);
    return Status();
  }

  // Claims the first empty slot of the key's probe line (key known absent).
  void place(K key, V value) {
    const std::uint64_t start = home(key);
    for (std::uint64_t d = 0;; ++d) {
      const std::uint64_t i = (start + d) & mask();
      if (slots_[i].key == sentinels::empty) {
        slots_[i] = slot_type{key, value};
        ++size_;
        max_distance_ = std::max(max_distance_, d);
        return;
      }
    }
  }

  PortableMapOptions options_;
  std::vector<slot_type> slots_;
  int power_ = portable_min_power;
  std::uint64_t size_ = 0;
  std::uint64_t tombstones_ = 0;
  std::uint64_t max_distance_ = 0;
};

}  // namespace metawarp::tables
