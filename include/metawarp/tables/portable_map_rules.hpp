#pragma once
// The rules shared by the portable linear-probing map's host path
// (portable_map.hpp, plain C++) and its device path (portable_map.cuh):
// slot format, Fibonacci hashing, probe distance and when to clean
// tombstones or grow. Written once here so a map built on the host and copied
// to the device (or back) is read with exactly the same positions.
// Design after Hashinator (Papadakis et al., 2024); no code taken from it.
#include <cstdint>
#include <stdexcept>

#include "metawarp/config.hpp"
#include "metawarp/tables/sentinels.hpp"

namespace metawarp::tables {

template <class K, class V>
struct PortableSlot {
  K key;
  V value;
};

struct PortableMapOptions {
  double max_load_factor = 0.75;  // grow (or clean tombstones) before exceeding this
  double grow_load_factor = 0.5;  // a growth picks the smallest power of two at or below this
};

// Fibonacci hashing (Knuth): multiply by 2^64 / golden ratio and keep the top
// `size_power` bits. The xor-shift first folds the high bits in, which the
// multiply alone would let only the top output bits see.
METAWARP_HD_INLINE constexpr std::uint64_t fibonacci_home(std::uint64_t key, int size_power) {
  key ^= key >> (64 - size_power);
  return (key * 0x9e3779b97f4a7c15ull) >> (64 - size_power);
}

// Distance of `slot` from the key's home slot along the (wrapping) probe line.
METAWARP_HD_INLINE constexpr std::uint64_t probe_distance(std::uint64_t slot, std::uint64_t home,
                                                          std::uint64_t mask) {
  return (slot - home) & mask;
}

inline constexpr int portable_min_power = 1;
inline constexpr int portable_max_power = 40;

// Smallest size power whose capacity holds `entries` at `load_factor`.
inline int portable_power_for(std::uint64_t entries, double load_factor) {
  if (!(load_factor > 0.0 && load_factor <= 1.0)) {
    throw std::invalid_argument("portable map load factor must be in (0, 1]");
  }
  int power = portable_min_power;
  while (double(std::uint64_t(1) << power) * load_factor < double(entries)) {
    if (++power > portable_max_power) {
      throw std::invalid_argument("portable map would need more than 2^40 slots");
    }
  }
  return power;
}

enum class RoomAction { none, clean_tombstones, grow };

// What to do before adding `extra` keys: nothing, reclaim tombstones (enough
// room once they are gone), or grow the capacity.
inline RoomAction plan_room(std::uint64_t size, std::uint64_t tombstones, std::uint64_t extra,
                            std::uint64_t capacity, const PortableMapOptions& options) {
  const double limit = options.max_load_factor * double(capacity);
  if (double(size + extra) > limit) return RoomAction::grow;
  if (double(size + tombstones + extra) > limit) return RoomAction::clean_tombstones;
  return RoomAction::none;
}

}  // namespace metawarp::tables
