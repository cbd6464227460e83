#pragma once
// Reserved key values. Open addressing needs two keys that users may not
// insert: one marking never-used slots (probing for a key stops there) and
// one marking erased slots (probing continues past them; inserts reuse them).
#include <cstdint>
#include <type_traits>

#include "metawarp/config.hpp"

namespace metawarp::tables {

template <class K>
struct KeySentinels {
  static_assert(std::is_unsigned_v<K> && (sizeof(K) == 4 || sizeof(K) == 8),
                "table keys are 32- or 64-bit unsigned integers (the widths of atomicCAS)");
  static constexpr K empty = K(~K(0));         // all bits set: what clear() writes
  static constexpr K tombstone = K(~K(0) - 1);
  METAWARP_HD_INLINE static constexpr bool is_valid(K key) { return key < tombstone; }
};

}  // namespace metawarp::tables
