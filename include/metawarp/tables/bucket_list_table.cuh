#pragma once
// BucketListHashTable: every key is stored once, in a single-value table whose
// value is a 64-bit list handle (ListHandle); the key's values live in a
// linked list of buckets carved out of one pre-allocated pool. Bucket i holds
// s_i = min(max_bucket_size, ceil(lambda * s_{i-1})) values; every bucket but
// the first starts with one header word holding the previous bucket's offset.
// The handle points at the newest (tail) bucket and counts the values, so an
// append is usually one CAS on the handle (reserve a slot) plus one store.
// Opening a new bucket blocks the handle (state `blocked`) while one thread
// allocates from the pool; other appenders of that key back off and retry.
// Erasing a key does not return its buckets to the pool (clear() does).
// The pool is split into stripes, each with its own allocation cursor, so
// bucket allocations do not all contend for one atomic counter; a stripe that
// runs out passes the request on to the next (a pool is only exhausted when
// all stripes are, up to one unused bucket tail per stripe).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "metawarp/tables/bucket_list_layout.hpp"
#include "metawarp/tables/probing_table.cuh"
#include "metawarp/tables/scan.cuh"

namespace metawarp::tables {

struct BucketListOptions {
  TableOptions table{};
  std::uint32_t first_bucket_size = 1;    // s_0
  double growth_factor = 1.1;             // lambda >= 1
  std::uint32_t max_bucket_size = 1024;   // cap on s_i
  std::uint64_t max_values_per_key = 0;   // 0 = up to ListHandle::max_count
};

template <class K, class V, class Probing = DoubleHashing, class Hasher = MurmurHasher,
          int GroupSize = 8>
class BucketListHashTable
    : public TableContainer<BucketListHashTable<K, V, Probing, Hasher, GroupSize>,
                            TableCore<SoaLayout<K, std::uint64_t>, Probing, Hasher, GroupSize>,
                            bulk_ops::insert_pairs | bulk_ops::count | bulk_ops::contains |
                                bulk_ops::erase | bulk_ops::retrieve,
                            V> {
  static_assert(std::is_unsigned_v<V> && sizeof(V) <= 8,
                "bucket list values are unsigned integers of at most 64 bits");
  using core_type = TableCore<SoaLayout<K, std::uint64_t>, Probing, Hasher, GroupSize>;
  using Base = typename BucketListHashTable::TableContainer;

 public:
  using key_type = K;
  using value_type = V;
  using group_type = cg::thread_block_tile<GroupSize>;
  static constexpr int group_size = GroupSize;
  static constexpr const char* name = "BucketListHashTable";

  // contains and erase (the key; its buckets stay taken): ProbingRef.
  struct Ref : ProbingRef<typename core_type::ref_type> {
    std::uint64_t* pool = nullptr;
    std::uint64_t pool_words = 0;
    std::uint64_t* stripe_cursors = nullptr;  // words handed out per stripe
    std::uint32_t num_stripes = 1;
    std::uint64_t max_values_per_key = ListHandle::max_count;
    BucketGrowth growth;

    __device__ Status insert(const group_type& g, K key, V value) const {
      const InsertResult r = this->core.insert(g, key, 0, /*unique=*/true, /*store_value=*/false);
      if (r.slot == no_slot) {
        this->core.record(g, r.status);
        return r.status;
      }
      Status::bits_type bits = 0;
      if (g.thread_rank() == 0) {
        bits = append(this->core.layout.value_ptr(r.slot), value,
                      std::uint32_t(r.slot % num_stripes)).bits();
      }
      const Status s(g.shfl(bits, 0));
      this->core.record(g, s);
      return s;
    }

    // `words` contiguous pool words, from stripe `first_stripe` or the ones
    // after it; ListHandle::max_offset + 1 when the pool is exhausted.
    __device__ std::uint64_t allocate(std::uint64_t words, std::uint32_t first_stripe) const {
      const std::uint64_t stripe_words = pool_words / num_stripes;
      for (std::uint32_t k = 0; k < num_stripes; ++k) {
        const std::uint32_t s = (first_stripe + k) % num_stripes;
        const std::uint64_t begin = s * stripe_words;
        const std::uint64_t end = s + 1 == num_stripes ? pool_words : begin + stripe_words;
        if (detail::volatile_load(stripe_cursors + s) + words > end - begin) continue;  // full
        const std::uint64_t used =
            atomicAdd(reinterpret_cast<unsigned long long*>(stripe_cursors + s), words);
        if (used + words <= end - begin && begin + used + words <= ListHandle::max_offset) {
          return begin + used;
        }
      }
      return ListHandle::max_offset + 1;
    }

    // Appends one value to the list behind *handle_ptr (one thread).
    __device__ Status append(std::uint64_t* handle_ptr, V value, std::uint32_t stripe) const {
      unsigned backoff_ns = 8;
      for (std::uint32_t attempt = 0; attempt < (1u << 24); ++attempt) {
        const ListHandle h{detail::volatile_load(handle_ptr)};
        if (h.state() == ListHandle::blocked) {  // another thread is opening a bucket
          __nanosleep(backoff_ns);
          if (backoff_ns < 1024) backoff_ns *= 2;
          continue;
        }
        const std::uint64_t n = h.count();
        if (n >= max_values_per_key) return Status(Status::max_values_per_key_reached);
        const BucketGrowth::Position at = growth.locate(n);
        if (at.slot != 0) {  // room in the tail bucket: reserve slot n
          const ListHandle next = ListHandle::make(h.offset(), n + 1, ListHandle::ready);
          if (detail::atomic_cas(handle_ptr, h.word, next.word) != h.word) continue;
          pool[h.offset() + (at.bucket > 0 ? 1 : 0) + at.slot] = std::uint64_t(value);
          return Status();
        }
        // Tail full (or no bucket yet): block the handle, allocate, link, publish.
        if (detail::atomic_cas(handle_ptr, h.word, h.with_state(ListHandle::blocked).word) !=
            h.word) {
          continue;
        }
        const std::uint64_t words = at.capacity + (at.bucket > 0 ? 1 : 0);
        const std::uint64_t offset = allocate(words, stripe);
        if (offset > ListHandle::max_offset) {
          atomicExch(reinterpret_cast<unsigned long long*>(handle_ptr), h.word);  // unblock
          return Status(Status::out_of_memory);
        }
        if (at.bucket > 0) {
          pool[offset] = h.offset();  // link to the previous bucket
          pool[offset + 1] = std::uint64_t(value);
        } else {
          pool[offset] = std::uint64_t(value);
        }
        __threadfence();
        atomicExch(reinterpret_cast<unsigned long long*>(handle_ptr),
                   ListHandle::make(offset, n + 1, ListHandle::ready).word);
        return Status();
      }
      return Status(Status::probing_length_exceeded);
    }

    // Calls f(value, rank) for every value of the list behind `handle`, spread
    // over the group's lanes (rank: 0.. in newest-first order); returns count.
    template <class F>
    __device__ std::uint64_t walk(const group_type& g, ListHandle h, F&& f) const {
      const std::uint64_t n = h.count();
      if (n == 0) return 0;
      const BucketGrowth::Position tail = growth.locate(n - 1);
      std::uint64_t bucket = tail.bucket;
      std::uint64_t in_bucket = tail.slot + 1;
      std::uint64_t offset = h.offset();
      std::uint64_t rank = 0;
      while (true) {
        const std::uint64_t data = offset + (bucket > 0 ? 1 : 0);
        for (std::uint64_t t = g.thread_rank(); t < in_bucket; t += GroupSize) {
          f(V(pool[data + t]), rank + t);
        }
        rank += in_bucket;
        if (bucket == 0) break;
        offset = pool[offset];
        --bucket;
        in_bucket = growth.bucket_size(bucket);
      }
      return n;
    }

    __device__ ListHandle handle_of(const group_type& g, K key) const {
      const std::uint64_t slot = this->core.find_slot(g, key);
      if (slot == no_slot) return ListHandle{};
      return ListHandle{detail::volatile_load(this->core.layout.value_ptr(slot))};
    }
    template <class F>
    __device__ std::uint64_t for_each_value(const group_type& g, K key, F&& f) const {
      return walk(g, handle_of(g, key), f);
    }
    __device__ std::uint64_t count(const group_type& g, K key) const {
      return handle_of(g, key).count();
    }
  };

  // key_capacity: distinct keys; pool_words: 64-bit words for values plus one
  // header word per bucket after a key's first.
  BucketListHashTable(std::uint64_t key_capacity, std::uint64_t pool_words,
                      BucketListOptions options, cudaStream_t stream)
      : Base(key_capacity, options.table, stream),
        pool_(pool_words),
        num_stripes_(std::uint32_t(std::clamp<std::uint64_t>(pool_words / 4096, 1, 256))),
        stripe_cursors_(num_stripes_),
        growth_(options.first_bucket_size, options.growth_factor, options.max_bucket_size),
        max_values_per_key_(options.max_values_per_key == 0 ||
                                    options.max_values_per_key > ListHandle::max_count
                                ? ListHandle::max_count
                                : options.max_values_per_key) {
    stripe_cursors_.fill_bytes(0, stream);
  }

  Ref ref() const {
    return Ref{{storage_.ref()}, pool_.data(), pool_.size(), stripe_cursors_.data(), num_stripes_,
               max_values_per_key_, growth_};
  }
  // The bucket growth schedule (e.g. growth().words_for(v) to size a pool).
  const BucketGrowth& growth() const { return growth_; }
  std::uint64_t key_capacity() const { return storage_.capacity(); }
  std::uint64_t bytes() const { return storage_.bytes() + pool_.size_bytes(); }

  // Bulk operations: TableContainer (count: values stored per key; erase:
  // the key, its buckets stay taken until clear; retrieve_offsets: the dry
  // run) and this one. capacity() is the key capacity; size() counts values.
  // Writes the values of keys[i] to values_out[offsets[i] .. offsets[i+1]).
  void retrieve(const K* keys, std::uint64_t n, const std::uint64_t* offsets, V* values_out,
                cudaStream_t stream) const {
    bulk::retrieve(ref(), keys, n, offsets, values_out, stream, "BucketListHashTable::retrieve");
  }

  // Calls the device functor f(g, key, handle) with a group of GroupSize
  // threads per stored key (for_each and retrieve_all walk the lists from here).
  template <class F>
  void for_each_list(F f, cudaStream_t stream, const char* what) const {
    const auto layout = storage_.ref().layout;
    launch_group_per_item<GroupSize>(storage_.capacity(), stream,
                                     [=] __device__(const group_type& g, std::uint64_t slot) {
      const K key = layout.load_key(slot);
      if (!KeySentinels<K>::is_valid(key)) return;
      f(g, key, ListHandle{layout.load_value(slot)});
    }, what);
  }
  // Calls the device functor f(key, value) once per stored value.
  template <class F>
  void for_each(F f, cudaStream_t stream) const {
    const Ref r = ref();
    for_each_list([=] __device__(const group_type& g, K key, ListHandle h) {
      r.walk(g, h, [&](V value, std::uint64_t) { f(key, value); });
    }, stream, "BucketListHashTable::for_each");
  }

  // Every (key, value) pair, unspecified order; outputs need size() entries.
  std::uint64_t retrieve_all(K* keys_out, V* values_out, cudaStream_t stream) const {
    storage_.reset_cursor(stream);
    std::uint64_t* cursor = storage_.cursor();
    const Ref r = ref();
    for_each_list([=] __device__(const group_type& g, K key, ListHandle h) {
      unsigned long long base = 0;
      if (g.thread_rank() == 0) {
        base = atomicAdd(reinterpret_cast<unsigned long long*>(cursor), h.count());
      }
      base = g.shfl(base, 0);
      r.walk(g, h, [&](V value, std::uint64_t rank) {
        if (keys_out != nullptr) keys_out[base + rank] = key;
        if (values_out != nullptr) values_out[base + rank] = value;
      });
    }, stream, "BucketListHashTable::retrieve_all");
    return storage_.read_cursor(stream);
  }

  // Number of stored values (synchronises `stream`).
  std::uint64_t size(cudaStream_t stream) const {
    storage_.reset_cursor(stream);
    std::uint64_t* cursor = storage_.cursor();
    const auto layout = storage_.ref().layout;
    storage_.for_each_occupied([=] __device__(std::uint64_t slot, K) {
      atomicAdd(reinterpret_cast<unsigned long long*>(cursor),
                (unsigned long long)ListHandle{layout.load_value(slot)}.count());
    }, stream);
    return storage_.read_cursor(stream);
  }
  // Number of distinct keys.
  std::uint64_t num_keys(cudaStream_t stream) const {
    return storage_.count_occupied(stream);
  }
  void clear(cudaStream_t stream) {
    storage_.clear(stream);
    stripe_cursors_.fill_bytes(0, stream);
  }

 private:
  using Base::storage_;

  cuda::device_buffer<std::uint64_t> pool_;
  std::uint32_t num_stripes_;
  cuda::device_buffer<std::uint64_t> stripe_cursors_;
  BucketGrowth growth_;
  std::uint64_t max_values_per_key_;
};

}  // namespace metawarp::tables
