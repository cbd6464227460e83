#pragma once
// Storage layouts of an open-addressing table. Each layout is a cheap,
// non-owning view (copied into kernels) plus an owning Storage (an
// ArrayStorage of its arrays). The view offers the few slot operations the
// probing core needs:
//   load_key(i)                         key of slot i (volatile: sees concurrent writers)
//   try_claim(i, expected, key, value, store_value)
//                                       atomically replace the free key `expected`
//                                       (empty or tombstone) by `key`
//                                       and store `value`; false if the slot changed.
//                                       store_value=false keeps the free slot's value
//                                       V{} (tables whose values are updated atomically
//                                       by other groups right after the claim need this)
//   try_erase(i, key)                   replace `key` by the tombstone; the value goes
//                                       back to V{} so a free slot always holds V{}
//   load_value(i), value_ptr(i)         the value (value_ptr for atomic updates)
//   init_slot(i)                        empty key, value-initialised value
// Layouts:
//  - PackedLayout: key and value in one 64-bit word, written by one CAS, so a
//    concurrent reader never sees a key with a stale value (key+value <= 8 bytes).
//    It also offers load_word / key_of / value_of, so a probe gets the value of
//    the slot it hits from the load that found the key (see has_word_loads).
//  - AosLayout: array of {key, value}; CAS on the key, then a plain value store.
//  - SoaLayout: separate key and value arrays; probing touches only keys.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <tuple>
#include <type_traits>

#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/tables/sentinels.hpp"

namespace metawarp::tables {

namespace detail {
// atomicCAS exists for unsigned int and unsigned long long only.
template <class T>
__device__ __forceinline__ T atomic_cas(T* address, T expected, T desired) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8);
  if constexpr (sizeof(T) == 4) {
    return T(atomicCAS(reinterpret_cast<unsigned int*>(address), (unsigned int)expected,
                       (unsigned int)desired));
  } else {
    return T(atomicCAS(reinterpret_cast<unsigned long long*>(address),
                       (unsigned long long)expected, (unsigned long long)desired));
  }
}
template <class T>
__device__ __forceinline__ T volatile_load(const T* address) {
  return *reinterpret_cast<const volatile T*>(address);
}
}  // namespace detail

// The owning side of a layout whose view is one device array per T, each of
// `capacity` elements, in that order (SoaLayout: keys, values): View{arrays...}.
template <class View, class... T>
class ArrayStorage {
 public:
  explicit ArrayStorage(std::uint64_t capacity) : arrays_(cuda::device_buffer<T>(capacity)...) {}
  View view() const {
    return std::apply([](const auto&... a) { return View{a.data()...}; }, arrays_);
  }
  std::uint64_t bytes() const {
    return std::apply([](const auto&... a) { return (a.size_bytes() + ...); }, arrays_);
  }

 private:
  std::tuple<cuda::device_buffer<T>...> arrays_;
};

template <class K, class V>
struct PackedLayout {
  static_assert(sizeof(K) + sizeof(V) <= 8, "PackedLayout needs key+value <= 64 bits");
  static_assert(std::is_unsigned_v<V>, "PackedLayout values are unsigned integers");
  using key_type = K;
  using value_type = V;
  using word_type = std::uint64_t;
  static constexpr const char* name = "packed";
  static constexpr int value_bits = 8 * sizeof(V);
  static constexpr word_type value_mask =
      value_bits == 64 ? ~word_type(0) : (word_type(1) << (value_bits % 64)) - 1;

  // Key in the high bits, value in the low bits: on a little-endian GPU the
  // value then sits at the word's address, so value_ptr() allows atomicAdd.
  __device__ __forceinline__ static word_type pack(K key, V value) {
    return (word_type(key) << value_bits) | word_type(value);
  }
  __device__ __forceinline__ static K key_of(word_type w) { return K(w >> value_bits); }

  word_type* words = nullptr;
  using Storage = ArrayStorage<PackedLayout, word_type>;

  __device__ __forceinline__ K load_key(std::uint64_t i) const {
    return key_of(detail::volatile_load(words + i));
  }
  __device__ __forceinline__ V load_value(std::uint64_t i) const {
    return V(detail::volatile_load(words + i) & value_mask);
  }
  __device__ __forceinline__ V* value_ptr(std::uint64_t i) const {
    return reinterpret_cast<V*>(words + i);
  }
  // The whole slot (key and value) in one load, for probes that want the
  // value of the slot they hit without reading it a second time.
  __device__ __forceinline__ word_type load_word(std::uint64_t i) const {
    return detail::volatile_load(words + i);
  }
  __device__ __forceinline__ static V value_of(word_type w) { return V(w & value_mask); }
  // N consecutive slots from slot i in 16-byte loads (N even: i must be even,
  // as in a bucket read by lanes of N slots each; N = 1: one load).
  template <int N>
  __device__ __forceinline__ void load_words(std::uint64_t i, word_type (&out)[N]) const {
    static_assert(N == 1 || N % 2 == 0, "slots per load: 1 or pairs");
    if constexpr (N == 1) {
      out[0] = load_word(i);
    } else {
#pragma unroll
      for (int j = 0; j < N; j += 2) {
        asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];"
                     : "=l"(out[j]), "=l"(out[j + 1])
                     : "l"(words + i + j));
      }
    }
  }
  // A free slot (empty or tombstone) always holds V{} (init_slot, try_erase),
  // so the expected word is known without reading the slot first: one CAS,
  // no dependent load. A slot that changed since the caller saw `expected`
  // fails the CAS as before.
  __device__ __forceinline__ bool try_claim(std::uint64_t i, K expected, K key, V value,
                                            bool store_value = true) const {
    if (!store_value) value = V{};
    const word_type free_word = pack(expected, V{});
    return detail::atomic_cas(words + i, free_word, pack(key, value)) == free_word;
  }
  __device__ __forceinline__ bool try_erase(std::uint64_t i, K key) const {
    const word_type seen = detail::volatile_load(words + i);
    if (key_of(seen) != key) return false;
    return detail::atomic_cas(words + i, seen, pack(KeySentinels<K>::tombstone, V{})) == seen;
  }
  __device__ __forceinline__ void init_slot(std::uint64_t i) const {
    words[i] = pack(KeySentinels<K>::empty, V{});
  }
};

template <class K, class V>
struct AosLayout {
  using key_type = K;
  using value_type = V;
  static constexpr const char* name = "aos";
  struct Slot {
    K key;
    V value;
  };
  Slot* slots = nullptr;
  using Storage = ArrayStorage<AosLayout, Slot>;

  __device__ __forceinline__ K load_key(std::uint64_t i) const {
    return detail::volatile_load(&slots[i].key);
  }
  __device__ __forceinline__ V load_value(std::uint64_t i) const { return slots[i].value; }
  __device__ __forceinline__ V* value_ptr(std::uint64_t i) const { return &slots[i].value; }
  __device__ __forceinline__ bool try_claim(std::uint64_t i, K expected, K key, V value,
                                            bool store_value = true) const {
    if (detail::atomic_cas(&slots[i].key, expected, key) != expected) return false;
    if (store_value) slots[i].value = value;  // racing readers may see the old value
    return true;
  }
  __device__ __forceinline__ bool try_erase(std::uint64_t i, K key) const {
    if (detail::volatile_load(&slots[i].key) != key) return false;
    slots[i].value = V{};
    return detail::atomic_cas(&slots[i].key, key, KeySentinels<K>::tombstone) == key;
  }
  __device__ __forceinline__ void init_slot(std::uint64_t i) const {
    slots[i].key = KeySentinels<K>::empty;
    slots[i].value = V{};
  }
};

template <class K, class V>
struct SoaLayout {
  using key_type = K;
  using value_type = V;
  static constexpr const char* name = "soa";
  K* keys = nullptr;
  V* values = nullptr;
  using Storage = ArrayStorage<SoaLayout, K, V>;

  __device__ __forceinline__ K load_key(std::uint64_t i) const {
    return detail::volatile_load(keys + i);
  }
  __device__ __forceinline__ V load_value(std::uint64_t i) const { return values[i]; }
  __device__ __forceinline__ V* value_ptr(std::uint64_t i) const { return values + i; }
  __device__ __forceinline__ bool try_claim(std::uint64_t i, K expected, K key, V value,
                                            bool store_value = true) const {
    if (detail::atomic_cas(keys + i, expected, key) != expected) return false;
    if (store_value) values[i] = value;
    return true;
  }
  __device__ __forceinline__ bool try_erase(std::uint64_t i, K key) const {
    if (detail::volatile_load(keys + i) != key) return false;
    values[i] = V{};
    return detail::atomic_cas(keys + i, key, KeySentinels<K>::tombstone) == key;
  }
  __device__ __forceinline__ void init_slot(std::uint64_t i) const {
    keys[i] = KeySentinels<K>::empty;
    values[i] = V{};
  }
};

// Keys only (HashSet): the "value" is the key's presence.
template <class K>
struct KeyOnlyLayout {
  using key_type = K;
  using value_type = bool;
  static constexpr const char* name = "keys_only";
  K* keys = nullptr;
  using Storage = ArrayStorage<KeyOnlyLayout, K>;

  __device__ __forceinline__ K load_key(std::uint64_t i) const {
    return detail::volatile_load(keys + i);
  }
  __device__ __forceinline__ bool load_value(std::uint64_t) const { return true; }
  __device__ __forceinline__ bool try_claim(std::uint64_t i, K expected, K key, bool,
                                            bool = true) const {
    return detail::atomic_cas(keys + i, expected, key) == expected;
  }
  __device__ __forceinline__ bool try_erase(std::uint64_t i, K key) const {
    return detail::atomic_cas(keys + i, key, KeySentinels<K>::tombstone) == key;
  }
  __device__ __forceinline__ void init_slot(std::uint64_t i) const {
    keys[i] = KeySentinels<K>::empty;
  }
};

// Layouts whose slot is one word holding key and value (PackedLayout).
template <class Layout>
inline constexpr bool has_word_loads = requires(const Layout& l, typename Layout::word_type w) {
  l.load_word(std::uint64_t(0));
  Layout::key_of(w);
  Layout::value_of(w);
};

// Packed where it fits, else struct-of-arrays.
template <class K, class V>
using DefaultLayout =
    std::conditional_t<(sizeof(K) + sizeof(V) <= 8 && std::is_unsigned_v<V>), PackedLayout<K, V>,
                       SoaLayout<K, V>>;

}  // namespace metawarp::tables
