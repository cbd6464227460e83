#pragma once
// The probing core shared by all open-addressing tables: a non-owning view
// (copied into kernels) implementing insert / find / erase / per-key
// enumeration for one key per cooperative group of GroupSize threads.
//
// A group examines one window of GroupSize consecutive slots per probing step
// (one coalesced load per lane) and votes with ballot; the probing scheme
// picks the next window. Capacity is num_windows * GroupSize with
// num_windows prime, which makes double hashing visit every window exactly
// once within num_windows steps. Every loop is bounded by max_probes windows.
//
// Keys sit at their lowest free position of their probing sequence, so a find
// may stop at the first window holding an empty slot. Erased slots hold a
// tombstone: finds step over them, inserts reuse them. A unique insert only
// reuses a tombstone after scanning up to an empty slot proved the key absent,
// and re-checks for the key on every (re)claim, so a key never appears twice.
// (Overlapping erase with insert of the same key in one kernel is not
// supported, as in the WarpCore paper.)
#include <cooperative_groups.h>

#include <cstdint>

#include "metawarp/tables/layouts.cuh"
#include "metawarp/tables/sentinels.hpp"
#include "metawarp/tables/status.hpp"

namespace metawarp::tables {

namespace cg = cooperative_groups;

inline constexpr std::uint64_t no_slot = ~std::uint64_t(0);

struct InsertResult {
  Status status;
  std::uint64_t slot = no_slot;  // where the key is stored (new or existing)
  bool inserted = false;         // a new slot was claimed
};

template <class Layout, class Probing, class Hasher, int GroupSize>
struct OpenAddressingRef {
  static_assert(GroupSize == 1 || GroupSize == 2 || GroupSize == 4 || GroupSize == 8 ||
                    GroupSize == 16 || GroupSize == 32,
                "group size must be a power of two <= 32");
  using layout_type = Layout;
  using key_type = typename Layout::key_type;
  using value_type = typename Layout::value_type;
  using sentinels = KeySentinels<key_type>;
  using group_type = cg::thread_block_tile<GroupSize>;
  static constexpr int group_size = GroupSize;

  Layout layout;
  std::uint32_t num_windows = 0;
  std::uint32_t max_probes = 0;      // windows examined before giving up
  Hasher hasher{};
  Status::bits_type* table_status = nullptr;  // accumulated status (device word)

  __host__ __device__ std::uint64_t capacity() const {
    return std::uint64_t(num_windows) * GroupSize;
  }

  // Adds `s` to the table's accumulated status (one atomic only when non-zero).
  __device__ __forceinline__ void record(const group_type& g, Status s) const {
    if (!s.ok() && g.thread_rank() == 0 && table_status != nullptr) {
      atomicOr(table_status, s.bits());
    }
  }

  // Inserts (key, value). unique: an existing key is left alone (duplicate_key
  // warning, slot of the existing key returned). !unique: always a new slot.
  // store_value=false leaves a new slot's value at V{} (see layouts.cuh).
  __device__ InsertResult insert(const group_type& g, key_type key, value_type value,
                                 bool unique, bool store_value = true) const {
    if (!sentinels::is_valid(key)) return {Status(Status::invalid_key)};
    const int lane = g.thread_rank();
    const std::uint64_t hash = hasher(key);
    // Unique inserts start by claiming empty slots only; if tombstones lay
    // before the first empty slot, a second pass claims the earliest free one.
    bool claim_tombstones = !unique;
    for (int pass = 0; pass < 2; ++pass) {
      bool tombstones_seen = false;
      Probing seq(hash, num_windows);
      for (std::uint32_t probe = 0; probe < max_probes; ++probe, seq.advance()) {
        const std::uint64_t base = std::uint64_t(seq.window()) * GroupSize;
        key_type k = layout.load_key(base + lane);
        while (true) {
          if (unique) {
            const unsigned hit = g.ballot(k == key);
            if (hit) return {Status(Status::duplicate_key), base + __ffs(hit) - 1, false};
          }
          const unsigned empty = g.ballot(k == sentinels::empty);
          const unsigned tomb = g.ballot(k == sentinels::tombstone);
          tombstones_seen |= tomb != 0;
          if (!claim_tombstones && tombstones_seen && empty) break;  // restart, claiming tombstones
          const unsigned free = claim_tombstones ? (empty | tomb) : empty;
          if (!free) break;  // next window
          const int leader = __ffs(free) - 1;
          bool claimed = false;
          if (lane == leader) claimed = layout.try_claim(base + lane, k, key, value, store_value);
          claimed = g.shfl(claimed, leader);
          if (claimed) return {Status(), base + leader, true};
          k = layout.load_key(base + lane);  // lost a race: look at the window again
        }
        if (!claim_tombstones && tombstones_seen && g.any(k == sentinels::empty)) break;
      }
      if (claim_tombstones || !tombstones_seen) break;
      claim_tombstones = true;
    }
    return {Status(max_probes >= num_windows ? Status::table_full
                                             : Status::probing_length_exceeded)};
  }

  // Slot holding `key`, or no_slot.
  __device__ std::uint64_t find_slot(const group_type& g, key_type key) const {
    if (!sentinels::is_valid(key)) return no_slot;
    const int lane = g.thread_rank();
    Probing seq(hasher(key), num_windows);
    for (std::uint32_t probe = 0; probe < max_probes; ++probe, seq.advance()) {
      const std::uint64_t base = std::uint64_t(seq.window()) * GroupSize;
      const key_type k = layout.load_key(base + lane);
      const unsigned hit = g.ballot(k == key);
      if (hit) return base + __ffs(hit) - 1;
      if (g.any(k == sentinels::empty)) return no_slot;
    }
    return no_slot;
  }

  // Calls f(slot) on every lane that holds a copy of `key` (multi-value
  // tables), in probing order; returns how many copies were visited.
  template <class F>
  __device__ std::uint64_t for_each_slot_of(const group_type& g, key_type key, F&& f) const {
    return for_each_value_of(g, key, ~std::uint64_t(0),
                             [&](std::uint64_t slot, value_type, std::uint64_t rank) {
      f(slot, rank);
    }, /*want_values=*/false);
  }

  // Calls f(slot, value, rank) on every lane that holds a copy of `key`, in
  // probing order, and stops once `limit` copies were visited (a retrieval
  // that knows a key's count need not probe on to the next empty slot);
  // returns how many copies were visited (at most limit rounded up to the
  // copies of the last window read). want_values=false passes V{} instead of
  // reading values (layouts that keep them apart).
  template <class F>
  __device__ std::uint64_t for_each_value_of(const group_type& g, key_type key, std::uint64_t limit,
                                             F&& f, bool want_values = true) const {
    if (!sentinels::is_valid(key) || limit == 0) return 0;
    const int lane = g.thread_rank();
    std::uint64_t visited = 0;
    Probing seq(hasher(key), num_windows);
    for (std::uint32_t probe = 0; probe < max_probes; ++probe, seq.advance()) {
      const std::uint64_t base = std::uint64_t(seq.window()) * GroupSize;
      key_type k;
      value_type v{};
      if constexpr (has_word_loads<Layout>) {
        const auto word = layout.load_word(base + lane);
        k = Layout::key_of(word);
        v = Layout::value_of(word);
      } else {
        k = layout.load_key(base + lane);
        if (want_values && k == key) v = layout.load_value(base + lane);
      }
      const unsigned hit = g.ballot(k == key);
      if (k == key) f(base + lane, v, visited + __popc(hit & ((1u << lane) - 1u)));
      visited += __popc(hit);
      if (visited >= limit) break;
      if (g.any(k == sentinels::empty)) break;
    }
    return visited;
  }

  // Number of slots holding `key`.
  __device__ std::uint64_t count(const group_type& g, key_type key) const {
    return for_each_slot_of(g, key, [](std::uint64_t, std::uint64_t) {});
  }

  // Erases one (unique tables) or all copies of `key`; returns how many.
  __device__ std::uint64_t erase(const group_type& g, key_type key, bool all_copies) const {
    if (!sentinels::is_valid(key)) return 0;
    const int lane = g.thread_rank();
    std::uint64_t erased = 0;
    Probing seq(hasher(key), num_windows);
    for (std::uint32_t probe = 0; probe < max_probes; ++probe, seq.advance()) {
      const std::uint64_t base = std::uint64_t(seq.window()) * GroupSize;
      const key_type k = layout.load_key(base + lane);
      const bool mine = k == key && layout.try_erase(base + lane, key);
      erased += __popc(g.ballot(mine));
      if (erased > 0 && !all_copies) break;
      if (g.any(k == sentinels::empty)) break;
    }
    return erased;
  }
};

}  // namespace metawarp::tables
