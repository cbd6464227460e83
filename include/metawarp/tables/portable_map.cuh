#pragma once
// DevicePortableMap: the device path of the portable linear-probing map
// (host path: portable_map.hpp, same slot format and positions, so maps move
// between host and device with upload()/download()). Design after Hashinator
// (Papadakis et al., 2024); no code taken from it.
//
// A key's probe line starts at its Fibonacci home slot in a power-of-two
// table. Device operations are run by a tile of W threads (default a warp):
// each step the tile reads W consecutive slots of the line (one coalesced
// window) and votes. Insert first proves the key absent up to the first
// window with an empty slot, then CASes the earliest empty slot, re-reading
// the window on a lost race (concurrent inserts of one key meet on the same
// slot, so a key never appears twice). Erase writes a tombstone; tombstones
// are reclaimed by clean_tombstones() (take out displaced entries, empty the
// tombstones, reinsert) instead of a full rehash. Bulk inserts first make
// room: clean tombstones or grow to the growth load factor (rules in
// portable_map_rules.hpp, shared with the host path).
#include <cooperative_groups.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/cuda/error.hpp"
#include "metawarp/tables/bulk.cuh"
#include "metawarp/tables/launch.cuh"
#include "metawarp/tables/layouts.cuh"
#include "metawarp/tables/open_addressing.cuh"
#include "metawarp/tables/portable_map.hpp"

namespace metawarp::tables {

namespace cg = cooperative_groups;

// Device-side bookkeeping of a portable map (one small device struct).
struct PortableCounters {
  unsigned long long size;
  unsigned long long tombstones;
  unsigned long long max_distance;
  Status::bits_type status;
};

namespace detail {

// (Free functions: CUDA forbids device lambdas inside private members.)
template <class Slot, class K>
void portable_clear(Slot* slots, std::uint64_t capacity, cudaStream_t stream) {
  launch_thread_per_item(capacity, stream, [=] __device__(std::uint64_t i, bool valid) {
    if (valid) slots[i] = Slot{KeySentinels<K>::empty, {}};
  }, "DevicePortableMap clear");
}

// Inserts every valid slot of `from` (entries known to be unique).
template <class Ref, class Slot, class K>
void portable_reinsert(const Ref& r, const Slot* from, std::uint64_t count, cudaStream_t stream) {
  launch_group_per_item<Ref::group_size>(count, stream,
      [=] __device__(const typename Ref::group_type& g, std::uint64_t i) {
        const Slot s = from[i];
        if (KeySentinels<K>::is_valid(s.key)) r.insert(g, s.key, s.value);
      }, "DevicePortableMap reinsert");
}

}  // namespace detail

template <class K, class V, int WindowSize = 32>
class DevicePortableMap {
  static_assert(WindowSize == 8 || WindowSize == 16 || WindowSize == 32,
                "portable map windows are 8, 16 or 32 slots");

 public:
  using key_type = K;
  using value_type = V;
  using slot_type = PortableSlot<K, V>;
  using sentinels = KeySentinels<K>;
  using group_type = cg::thread_block_tile<WindowSize>;
  static constexpr int group_size = WindowSize;

  struct Ref {
    using group_type = cg::thread_block_tile<WindowSize>;
    static constexpr int group_size = WindowSize;
    slot_type* slots = nullptr;
    int size_power = 0;
    PortableCounters* counters = nullptr;

    __device__ std::uint64_t mask() const { return (std::uint64_t(1) << size_power) - 1; }
    // Windows that cover the whole table (a table smaller than a window is
    // read with lanes wrapping onto the same slots, which is harmless).
    __device__ std::uint64_t num_windows() const {
      return ((std::uint64_t(1) << size_power) + WindowSize - 1) / WindowSize;
    }
    __device__ K load_key(std::uint64_t i) const { return detail::volatile_load(&slots[i].key); }

    __device__ std::uint64_t find_slot(const group_type& g, K key) const {
      if (!sentinels::is_valid(key)) return no_slot;
      const std::uint64_t home = fibonacci_home(std::uint64_t(key), size_power);
      const int lane = g.thread_rank();
      for (std::uint64_t w = 0; w < num_windows(); ++w) {
        const std::uint64_t slot = (home + w * WindowSize + lane) & mask();
        const K k = load_key(slot);
        const unsigned hit = g.ballot(k == key);
        if (hit) return g.shfl(slot, __ffs(hit) - 1);
        if (g.any(k == sentinels::empty)) return no_slot;
      }
      return no_slot;
    }

    __device__ bool find(const group_type& g, K key, V& value_out) const {
      const std::uint64_t slot = find_slot(g, key);
      if (slot == no_slot) return false;
      value_out = slots[slot].value;
      return true;
    }
    __device__ bool contains(const group_type& g, K key) const {
      return find_slot(g, key) != no_slot;
    }
    __device__ bool erase(const group_type& g, K key) const {
      const std::uint64_t slot = find_slot(g, key);
      if (slot == no_slot) return false;
      bool erased = false;
      if (g.thread_rank() == 0) {
        slots[slot].value = V{};
        erased = detail::atomic_cas(&slots[slot].key, key, sentinels::tombstone) == key;
        if (erased) {
          atomicAdd(&counters->size, ~0ull);  // -1
          atomicAdd(&counters->tombstones, 1ull);
        }
      }
      return g.shfl(erased, 0);
    }

    // Inserts if absent (duplicate_key otherwise); table_full when no window
    // of the line has an empty slot (bulk inserts make room first).
    __device__ Status insert(const group_type& g, K key, V value) const {
      const Status s = place(g, key, value);
      if (!s.ok() && g.thread_rank() == 0) atomicOr(&counters->status, s.bits());
      return s;
    }

   private:
    __device__ Status place(const group_type& g, K key, V value) const {
      if (!sentinels::is_valid(key)) return Status(Status::invalid_key);
      const std::uint64_t home = fibonacci_home(std::uint64_t(key), size_power);
      const int lane = g.thread_rank();
      for (std::uint64_t w = 0; w < num_windows(); ++w) {
        const std::uint64_t offset = w * WindowSize + lane;
        const std::uint64_t slot = (home + offset) & mask();
        K k = load_key(slot);
        while (true) {
          if (g.any(k == key)) return Status(Status::duplicate_key);
          const unsigned empty = g.ballot(k == sentinels::empty);
          if (!empty) break;  // next window
          const int leader = __ffs(empty) - 1;
          bool won = false;
          if (lane == leader) {
            won = detail::atomic_cas(&slots[slot].key, sentinels::empty, key) == sentinels::empty;
            if (won) {
              slots[slot].value = value;
              atomicAdd(&counters->size, 1ull);
              atomicMax(&counters->max_distance, (unsigned long long)(offset & mask()));
            }
          }
          if (g.shfl(won, leader)) return Status();
          k = load_key(slot);  // lost a race: read the window again
        }
      }
      return Status(Status::table_full);
    }
  };

  DevicePortableMap(std::uint64_t min_capacity, PortableMapOptions options, cudaStream_t stream)
      : options_(options), counters_(1) {
    reset(portable_power_for(min_capacity, 1.0), stream);
  }

  // A device copy of a host map (same slots, same positions).
  static DevicePortableMap upload(const PortableMap<K, V>& host, cudaStream_t stream) {
    DevicePortableMap map(host.capacity(), host.options(), stream);
    map.slots_.copy_from_host(host.slots().data(), host.capacity(), stream);
    map.write_counters({host.size(), host.tombstones(), host.max_distance(), 0}, stream);
    cuda::check(cudaStreamSynchronize(stream), "uploading a portable map");
    return map;
  }
  // A host copy (synchronises `stream`).
  PortableMap<K, V> download(cudaStream_t stream) const {
    std::vector<slot_type> slots(capacity());
    slots_.copy_to_host(slots.data(), slots.size(), stream);
    cuda::check(cudaStreamSynchronize(stream), "downloading a portable map");
    return PortableMap<K, V>::from_slots(std::move(slots), power_, options_);
  }

  Ref ref() const { return Ref{slots_.data(), power_, counters_.data()}; }
  std::uint64_t capacity() const { return std::uint64_t(1) << power_; }
  int size_power() const { return power_; }
  std::uint64_t bytes() const { return slots_.size_bytes(); }

  // Makes room for n more keys (may clean tombstones or grow), then inserts.
  void insert(const K* keys, const V* values, std::uint64_t n, cudaStream_t stream,
              Status* status_out = nullptr) {
    make_room(n, stream);
    bulk::insert(ref(), keys, values, n, stream, status_out, "DevicePortableMap::insert");
  }
  void find(const K* keys, std::uint64_t n, V* values_out, V not_found_value, cudaStream_t stream,
            Status* status_out = nullptr) const {
    bulk::find(ref(), keys, n, values_out, not_found_value, stream, status_out,
               "DevicePortableMap::find");
  }
  void contains(const K* keys, std::uint64_t n, bool* out, cudaStream_t stream) const {
    bulk::contains(ref(), keys, n, out, stream, "DevicePortableMap::contains");
  }
  void erase(const K* keys, std::uint64_t n, cudaStream_t stream, Status* status_out = nullptr) {
    bulk::erase(ref(), keys, n, stream, status_out, "DevicePortableMap::erase");
  }

  // Hashinator's parallel cleanup: one pass empties tombstones and takes out
  // every entry not at its home slot (stream compaction), then the taken
  // entries are reinserted. Entries at home stay where they are.
  void clean_tombstones(cudaStream_t stream) {
    const PortableCounters before = read_counters(stream);
    cuda::device_buffer<slot_type> displaced(before.size);
    cuda::device_buffer<std::uint64_t> cursor(1);
    cursor.fill_bytes(0, stream);
    slot_type* out = displaced.data();
    std::uint64_t* taken = cursor.data();
    slot_type* slots = slots_.data();
    const int power = power_;
    const std::uint64_t mask = capacity() - 1;
    launch_thread_per_item(capacity(), stream, [=] __device__(std::uint64_t i, bool valid) {
      const K k = valid ? slots[i].key : sentinels::empty;
      const bool take = sentinels::is_valid(k) &&
                        probe_distance(i, fibonacci_home(std::uint64_t(k), power), mask) != 0;
      const std::uint64_t at = warp_reserve(taken, take);
      if (take) out[at] = slots[i];
      if (take || k == sentinels::tombstone) slots[i] = slot_type{sentinels::empty, V{}};
    }, "DevicePortableMap tombstone cleanup");
    std::uint64_t count = 0;
    cursor.copy_to_host(&count, 1, stream);
    cuda::check(cudaStreamSynchronize(stream), "counting displaced entries");
    write_counters({before.size - count, 0, 0, before.status}, stream);
    reinsert(displaced.data(), count, stream);
  }

  // Moves every entry into 2^size_power slots (>= size), dropping tombstones.
  void rehash(int size_power, cudaStream_t stream) {
    const PortableCounters before = read_counters(stream);
    if (size_power < portable_min_power || size_power > portable_max_power ||
        (std::uint64_t(1) << size_power) <= before.size) {
      throw std::invalid_argument("portable map rehash to a size power that cannot hold it");
    }
    cuda::device_buffer<slot_type> old = std::move(slots_);
    const std::uint64_t old_capacity = capacity();
    reset(size_power, stream);
    write_counters({0, 0, 0, before.status}, stream);
    reinsert(old.data(), old_capacity, stream);
    cuda::check(cudaStreamSynchronize(stream), "rehashing a portable map");  // `old` dies here
  }

  std::uint64_t size(cudaStream_t stream) const { return read_counters(stream).size; }
  std::uint64_t tombstones(cudaStream_t stream) const { return read_counters(stream).tombstones; }
  std::uint64_t max_distance(cudaStream_t stream) const {
    return read_counters(stream).max_distance;
  }
  double load_factor(cudaStream_t stream) const { return double(size(stream)) / double(capacity()); }
  void clear(cudaStream_t stream) { reset(power_, stream); }
  Status peek_status(cudaStream_t stream) const { return Status(read_counters(stream).status); }
  Status pop_status(cudaStream_t stream) {
    PortableCounters c = read_counters(stream);
    const Status s(c.status);
    c.status = 0;
    write_counters(c, stream);
    return s;
  }

 private:
  void reset(int size_power, cudaStream_t stream) {
    power_ = size_power;
    slots_ = cuda::device_buffer<slot_type>(capacity());
    detail::portable_clear<slot_type, K>(slots_.data(), capacity(), stream);
    counters_.fill_bytes(0, stream);
  }

  void make_room(std::uint64_t n, cudaStream_t stream) {
    const PortableCounters c = read_counters(stream);
    switch (plan_room(c.size, c.tombstones, n, capacity(), options_)) {
      case RoomAction::grow:
        rehash(std::max(power_ + 1, portable_power_for(c.size + n, options_.grow_load_factor)),
               stream);
        break;
      case RoomAction::clean_tombstones: clean_tombstones(stream); break;
      case RoomAction::none: break;
    }
  }

  void reinsert(const slot_type* from, std::uint64_t count, cudaStream_t stream) {
    detail::portable_reinsert<Ref, slot_type, K>(ref(), from, count, stream);
  }

  PortableCounters read_counters(cudaStream_t stream) const {
    PortableCounters c{};
    counters_.copy_to_host(&c, 1, stream);
    cuda::check(cudaStreamSynchronize(stream), "reading portable map counters");
    return c;
  }
  void write_counters(PortableCounters c, cudaStream_t stream) {
    counters_.copy_from_host(&c, 1, stream);
    // `c` is a stack copy: finish the transfer before it goes away.
    cuda::check(cudaStreamSynchronize(stream), "writing portable map counters");
  }

  PortableMapOptions options_;
  int power_ = portable_min_power;
  cuda::device_buffer<slot_type> slots_;
  cuda::device_buffer<PortableCounters> counters_;
};

}  // namespace metawarp::tables
