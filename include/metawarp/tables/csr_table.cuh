#pragma once
// CsrTable: a static multi-value hash table in CSR form (HashGraph). Design
// after Green, "HashGraph - Scalable Hash Tables Using A Sparse Graph Data
// Structure" (2021) and the binned build of its multi-GPU version; no code
// taken from them.
//
// Every key hashes to one of num_vertices "vertices"; the table is the CSR
// adjacency of that graph: offsets[v] .. offsets[v+1] index the (key, value)
// pairs of vertex v. Built in one go from device arrays:
//   scatter: hash, count per vertex (atomicAdd), prefix sum, scatter (atomicAdd cursors)
//   binned:  the same first into bins of consecutive vertices, then per vertex
//            within the binned copy, so the counters and the scatter targets
//            of nearby items share cache lines (HashGraph-V2).
//   sorted (default, the fastest measured): a stable radix sort of the pairs
//            by vertex (CUB, coalesced passes and no random atomics), then one
//            pass that copies the pairs and writes the offsets, then the lists
//            holding keys out of order sorted by key (long ones by CUB's
//            segmented sort). Values of one key keep their input order, so the
//            table is the same whatever the thread timing.
// Then each vertex's list is sorted by key (values of one key keep the
// unspecified scatter order, or the input order of the sorted build), so all
// values of a key are one contiguous run and two tables with the same
// vertices intersect by merging lists.
// Multi-value by construction; no sentinel keys (every key value is valid);
// the load factor (keys per vertex) may exceed 1.
#include <cooperative_groups.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/cuda/error.hpp"
#include "metawarp/tables/hashers.hpp"
#include "metawarp/tables/launch.cuh"
#include "metawarp/tables/scan.cuh"

namespace metawarp::tables {

namespace cg = cooperative_groups;

enum class CsrBuildMethod { scatter, binned, sorted };

struct CsrOptions {
  double load_factor = 1.0;        // keys per vertex (above 1 allowed)
  std::uint64_t num_vertices = 0;  // 0: ceil(n / load_factor); set it to intersect tables of different n
  std::uint64_t seed = 0;          // hash seed
  CsrBuildMethod method = CsrBuildMethod::sorted;
  std::uint32_t bins = 1u << 14;   // binned build: number of vertex ranges
};

namespace detail {

// (Free functions: CUDA forbids device lambdas inside private members.)

// Count per group, prefix sum into offsets (groups + 1), scatter: the pairs
// of group j land in out[offsets[j] .. offsets[j+1]).
template <class K, class V, class GroupOf>
void counting_scatter(const K* in_keys, const V* in_values, std::uint64_t n, std::uint64_t groups,
                      GroupOf group_of, std::uint64_t* offsets, K* out_keys, V* out_values,
                      cudaStream_t stream) {
  cuda::check(cudaMemsetAsync(offsets, 0, (groups + 1) * sizeof(std::uint64_t), stream),
              "clearing CSR counters");
  launch_thread_per_item(n, stream, [=] __device__(std::uint64_t i, bool valid) {
    if (valid) atomicAdd(reinterpret_cast<unsigned long long*>(offsets + group_of(in_keys[i])), 1ull);
  }, "CSR count");
  counts_to_offsets(offsets, groups, stream);
  cuda::device_buffer<std::uint64_t> cursors(groups);
  cuda::check(cudaMemcpyAsync(cursors.data(), offsets, groups * sizeof(std::uint64_t),
                              cudaMemcpyDeviceToDevice, stream),
              "copying CSR offsets to cursors");
  std::uint64_t* cursor = cursors.data();
  launch_thread_per_item(n, stream, [=] __device__(std::uint64_t i, bool valid) {
    if (!valid) return;
    const K k = in_keys[i];
    const std::uint64_t at =
        atomicAdd(reinterpret_cast<unsigned long long*>(cursor + group_of(k)), 1ull);
    out_keys[at] = k;
    out_values[at] = in_values[i];
  }, "CSR scatter");
  cuda::check(cudaStreamSynchronize(stream), "CSR scatter");  // `cursors` dies here
}

// One thread's stable insertion sort of the pairs [begin, end) by key
// (equal keys never move past each other).
template <class K, class V>
__device__ void insertion_sort_by_key(K* keys, V* values, std::uint64_t begin, std::uint64_t end) {
  for (std::uint64_t i = begin + 1; i < end; ++i) {
    const K k = keys[i];
    const V val = values[i];
    std::uint64_t j = i;
    for (; j > begin && keys[j - 1] > k; --j) {
      keys[j] = keys[j - 1];
      values[j] = values[j - 1];
    }
    keys[j] = k;
    values[j] = val;
  }
}

// Each vertex's list sorted by key in one thread: cheap because a list holds
// few distinct keys.
template <class K, class V>
void sort_csr_lists(const std::uint64_t* offsets, std::uint64_t vertices, K* keys, V* values,
                    cudaStream_t stream) {
  launch_thread_per_item(vertices, stream, [=] __device__(std::uint64_t v, bool valid) {
    if (valid) insertion_sort_by_key(keys, values, offsets[v], offsets[v + 1]);
  }, "CSR list sort");
}

// A pair carried through the sort (namespace scope: kernels take no local types).
template <class K, class V>
struct CsrPair {
  K key;
  V value;
};

// Lists longer than this that hold several keys out of order are sorted by
// CUB's segmented sort; shorter ones by one thread (insertion sort).
inline constexpr std::uint64_t csr_short_list = 32;

// The sorted build, in passes that each spread over all pairs:
//  1. vertex of every pair; stable radix sort of the pairs by vertex over
//     the bits the vertex count needs (Vertex: u32 or u64);
//  2. thread i copies pair i to its place (coalesced) and, where a run of a
//     vertex starts, writes the offsets of the vertices since the previous
//     run; pairs whose key is below their predecessor's in the same vertex
//     mark their vertex unsorted;
//  3. unsorted vertices: short lists by one thread, long ones (the long lists
//     of many values per key, formerly one thread's serial work) by a stable
//     segmented sort. Values of one key keep their input order throughout.
template <class Vertex, class K, class V, class VertexOf>
void sorted_build(const K* in_keys, const V* in_values, std::uint64_t n, std::uint64_t vertices,
                  VertexOf vertex_of, std::uint64_t* offsets, K* out_keys, V* out_values,
                  cudaStream_t stream) {
  using Pair = CsrPair<K, V>;
  cuda::device_buffer<unsigned char> unsorted(vertices);
  cuda::check(cudaMemsetAsync(unsorted.data(), 0, vertices, stream), "clearing CSR flags");
  unsigned char* unsorted_flag = unsorted.data();
  {
    cuda::device_buffer<Vertex> vertex_a(n), vertex_b(n);
    cuda::device_buffer<Pair> pair_a(n), pair_b(n);
    Vertex* va = vertex_a.data();
    Pair* pa = pair_a.data();
    launch_thread_per_item(n, stream, [=] __device__(std::uint64_t i, bool valid) {
      if (!valid) return;
      const K k = in_keys[i];
      va[i] = Vertex(vertex_of(k));
      pa[i] = Pair{k, in_values[i]};
    }, "CSR sorted build: vertices");
    int end_bit = 1;
    while (end_bit < int(8 * sizeof(Vertex)) && ((vertices - 1) >> end_bit) != 0) ++end_bit;
    cub::DoubleBuffer<Vertex> vertex_keys(vertex_a.data(), vertex_b.data());
    cub::DoubleBuffer<Pair> pairs(pair_a.data(), pair_b.data());
    std::size_t temp_bytes = 0;
    cuda::check(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, vertex_keys, pairs, n, 0,
                                                end_bit, stream),
                "sizing the CSR sort");
    cuda::device_buffer<unsigned char> temp(temp_bytes);
    cuda::check(cub::DeviceRadixSort::SortPairs(temp.data(), temp_bytes, vertex_keys, pairs, n, 0,
                                                end_bit, stream),
                "sorting CSR pairs by vertex");
    const Vertex* sorted_vertex = vertex_keys.Current();
    const Pair* sorted_pair = pairs.Current();
    launch_thread_per_item(n + 1, stream, [=] __device__(std::uint64_t i, bool valid) {
      if (!valid) return;
      const std::uint64_t v = i < n ? std::uint64_t(sorted_vertex[i]) : vertices;
      const std::uint64_t previous = i > 0 ? std::uint64_t(sorted_vertex[i - 1]) : ~std::uint64_t(0);
      if (i < n) {
        const Pair p = sorted_pair[i];
        out_keys[i] = p.key;
        out_values[i] = p.value;
        if (i > 0 && v == previous && p.key < sorted_pair[i - 1].key) unsorted_flag[v] = 1;
        if (i > 0 && v == previous) return;  // not the start of a run
      }
      for (std::uint64_t u = previous + 1; u <= v && u <= vertices; ++u) offsets[u] = i;
    }, "CSR sorted build: runs");
    cuda::check(cudaStreamSynchronize(stream), "CSR sorted build");  // the sort buffers die here
  }
  // Unsorted short lists sorted here; the long ones counted, then listed as
  // segments [begin, end) (in any order: each is sorted on its own).
  cuda::device_buffer<std::uint64_t> counter(1);
  counter.fill_bytes(0, stream);
  std::uint64_t* long_count = counter.data();
  launch_thread_per_item(vertices, stream, [=] __device__(std::uint64_t v, bool valid) {
    const bool flagged = valid && unsorted_flag[v] != 0;
    const std::uint64_t first = flagged ? offsets[v] : 0, last = flagged ? offsets[v + 1] : 0;
    const bool long_list = flagged && last - first > csr_short_list;
    warp_reserve(long_count, long_list);
    if (flagged && !long_list) insertion_sort_by_key(out_keys, out_values, first, last);
  }, "CSR sorted build: short lists");
  std::uint64_t long_lists = 0;
  counter.copy_to_host(&long_lists, 1, stream);
  cuda::check(cudaStreamSynchronize(stream), "counting long CSR lists");
  if (long_lists == 0) return;
  cuda::device_buffer<std::uint64_t> begins(long_lists), ends(long_lists);
  std::uint64_t* begin = begins.data();
  std::uint64_t* end = ends.data();
  counter.fill_bytes(0, stream);
  launch_thread_per_item(vertices, stream, [=] __device__(std::uint64_t v, bool valid) {
    const bool flagged = valid && unsorted_flag[v] != 0;
    const std::uint64_t first = flagged ? offsets[v] : 0, last = flagged ? offsets[v + 1] : 0;
    const bool long_list = flagged && last - first > csr_short_list;
    const std::uint64_t at = warp_reserve(long_count, long_list);
    if (!long_list) return;
    begin[at] = first;
    end[at] = last;
  }, "CSR sorted build: long lists");
  // The segmented sort reads copies (its input and output must not overlap)
  // and writes back only inside the segments.
  cuda::device_buffer<K> keys_in(n);
  cuda::device_buffer<V> values_in(n);
  cuda::check(cudaMemcpyAsync(keys_in.data(), out_keys, n * sizeof(K), cudaMemcpyDeviceToDevice,
                              stream),
              "copying CSR keys");
  cuda::check(cudaMemcpyAsync(values_in.data(), out_values, n * sizeof(V),
                              cudaMemcpyDeviceToDevice, stream),
              "copying CSR values");
  std::size_t temp_bytes = 0;
  cuda::check(cub::DeviceSegmentedSort::StableSortPairs(
                  nullptr, temp_bytes, keys_in.data(), out_keys, values_in.data(), out_values,
                  n, long_lists, begin, end, stream),
              "sizing the CSR list sort");
  cuda::device_buffer<unsigned char> temp(temp_bytes);
  cuda::check(cub::DeviceSegmentedSort::StableSortPairs(
                  temp.data(), temp_bytes, keys_in.data(), out_keys, values_in.data(), out_values,
                  n, long_lists, begin, end, stream),
              "sorting long CSR lists by key");
  cuda::check(cudaStreamSynchronize(stream), "CSR list sort");  // temporaries die here
}

}  // namespace detail

template <class K, class V, class Hasher = MurmurHasher, int GroupSize = 4>
class CsrTable {
  static_assert(GroupSize == 1 || GroupSize == 2 || GroupSize == 4 || GroupSize == 8 ||
                    GroupSize == 16 || GroupSize == 32,
                "group size must be a power of two <= 32");

 public:
  using key_type = K;
  using value_type = V;
  using group_type = cg::thread_block_tile<GroupSize>;
  static constexpr int group_size = GroupSize;

  struct Ref {
    using group_type = cg::thread_block_tile<GroupSize>;
    static constexpr int group_size = GroupSize;
    const std::uint64_t* offsets = nullptr;
    const K* keys = nullptr;
    const V* values = nullptr;
    std::uint64_t num_vertices = 0;
    Hasher hasher{};

    // The key's vertex: multiply-high range reduction of its 64-bit hash.
    __device__ std::uint64_t vertex_of(K key) const {
      return __umul64hi(hasher(std::uint64_t(key)), num_vertices);
    }

    // Calls f(value, rank) for each value of `key` on the lane that reads it
    // (rank 0, 1, ...); returns the number of values. The group reads the
    // key-sorted list GroupSize entries at a time and stops past the key.
    template <class F>
    __device__ std::uint64_t for_each_value(const group_type& g, K key, F&& f) const {
      const std::uint64_t v = vertex_of(key);
      const std::uint64_t end = offsets[v + 1];
      const int lane = g.thread_rank();
      std::uint64_t found = 0;
      for (std::uint64_t pos = offsets[v]; pos < end; pos += GroupSize) {
        const bool inside = pos + lane < end;
        const K k = inside ? keys[pos + lane] : K{};
        const unsigned hit = g.ballot(inside && k == key);
        if (inside && k == key) f(values[pos + lane], found + __popc(hit & ((1u << lane) - 1u)));
        found += __popc(hit);
        if (g.any(inside && k > key)) break;  // sorted: the key's run is over
      }
      return found;
    }
    __device__ std::uint64_t count(const group_type& g, K key) const {
      return for_each_value(g, key, [](V, std::uint64_t) {});
    }
    __device__ bool contains(const group_type& g, K key) const { return count(g, key) != 0; }
  };

  // Builds the table from n device-resident pairs (asynchronous apart from
  // the prefix sums, which synchronise `stream`).
  CsrTable(const K* keys, const V* values, std::uint64_t n, CsrOptions options,
           cudaStream_t stream)
      : options_(options),
        num_vertices_(vertices_for(n, options)),
        offsets_(num_vertices_ + 1),
        keys_(n),
        values_(n),
        size_(n) {
    const Ref r = ref();
    if (options.method == CsrBuildMethod::sorted) {
      if (n == 0) {
        cuda::check(cudaMemsetAsync(offsets_.data(), 0, (num_vertices_ + 1) * sizeof(std::uint64_t),
                                    stream),
                    "clearing CSR offsets");
      } else if (num_vertices_ <= (std::uint64_t(1) << 32)) {
        detail::sorted_build<std::uint32_t>(keys, values, n, num_vertices_, VertexOf{r},
                                            offsets_.data(), keys_.data(), values_.data(), stream);
      } else {
        detail::sorted_build<std::uint64_t>(keys, values, n, num_vertices_, VertexOf{r},
                                            offsets_.data(), keys_.data(), values_.data(), stream);
      }
      return;  // the lists are sorted by key already
    }
    if (options.method == CsrBuildMethod::scatter || num_vertices_ <= options.bins) {
      detail::counting_scatter(keys, values, n, num_vertices_, VertexOf{r}, offsets_.data(),
                       keys_.data(), values_.data(), stream);
    } else {
      const std::uint64_t bins = options.bins;
      const std::uint64_t per_bin = (num_vertices_ + bins - 1) / bins;
      cuda::device_buffer<std::uint64_t> bin_offsets(bins + 1);
      cuda::device_buffer<K> binned_keys(n);
      cuda::device_buffer<V> binned_values(n);
      detail::counting_scatter(keys, values, n, bins, BinOf{r, per_bin}, bin_offsets.data(),
                       binned_keys.data(), binned_values.data(), stream);
      detail::counting_scatter(binned_keys.data(), binned_values.data(), n, num_vertices_, VertexOf{r},
                       offsets_.data(), keys_.data(), values_.data(), stream);
      cuda::check(cudaStreamSynchronize(stream), "binned CSR build");  // temporaries die here
    }
    detail::sort_csr_lists(offsets_.data(), num_vertices_, keys_.data(), values_.data(), stream);
  }

  Ref ref() const {
    return Ref{offsets_.data(), keys_.data(), values_.data(), num_vertices_,
               Hasher(options_.seed)};
  }
  std::uint64_t size() const { return size_; }
  std::uint64_t num_vertices() const { return num_vertices_; }
  std::uint64_t seed() const { return options_.seed; }
  double load_factor() const { return double(size_) / double(num_vertices_); }
  std::uint64_t bytes() const {
    return offsets_.size_bytes() + keys_.size_bytes() + values_.size_bytes();
  }
  // The CSR arrays themselves (device): offsets (num_vertices + 1), keys, values.
  const std::uint64_t* offsets() const { return offsets_.data(); }
  const K* keys() const { return keys_.data(); }
  const V* values() const { return values_.data(); }

  // counts[i] = number of values of keys[i].
  void count(const K* keys, std::uint64_t n, std::uint64_t* counts, cudaStream_t stream) const {
    const Ref r = ref();
    launch_group_per_item<GroupSize>(n, stream, [=] __device__(const group_type& g, std::uint64_t i) {
      const std::uint64_t c = r.count(g, keys[i]);
      if (g.thread_rank() == 0) counts[i] = c;
    }, "CsrTable::count");
  }
  // Dry run: offsets (n + 1) of each key's values; returns the total.
  std::uint64_t retrieve_offsets(const K* keys, std::uint64_t n, std::uint64_t* offsets,
                                 cudaStream_t stream) const {
    count(keys, n, offsets, stream);
    return counts_to_offsets(offsets, n, stream);
  }
  // Values of keys[i] to values_out[offsets[i] .. offsets[i+1]).
  void retrieve(const K* keys, std::uint64_t n, const std::uint64_t* offsets, V* values_out,
                cudaStream_t stream) const {
    const Ref r = ref();
    launch_group_per_item<GroupSize>(n, stream, [=] __device__(const group_type& g, std::uint64_t i) {
      V* out = values_out + offsets[i];
      const std::uint64_t room = offsets[i + 1] - offsets[i];
      r.for_each_value(g, keys[i], [&](V value, std::uint64_t rank) {
        if (rank < room) out[rank] = value;
      });
    }, "CsrTable::retrieve");
  }
  void contains(const K* keys, std::uint64_t n, bool* out, cudaStream_t stream) const {
    const Ref r = ref();
    launch_group_per_item<GroupSize>(n, stream, [=] __device__(const group_type& g, std::uint64_t i) {
      const bool found = r.contains(g, keys[i]);
      if (g.thread_rank() == 0) out[i] = found;
    }, "CsrTable::contains");
  }

  // Key -> vertex and key -> bin of the builds (public: kernels may only be
  // instantiated with accessible types).
  struct VertexOf {
    Ref r;
    __device__ std::uint64_t operator()(K key) const { return r.vertex_of(key); }
  };
  struct BinOf {
    Ref r;
    std::uint64_t vertices_per_bin;
    __device__ std::uint64_t operator()(K key) const { return r.vertex_of(key) / vertices_per_bin; }
  };

 private:

  static std::uint64_t vertices_for(std::uint64_t n, const CsrOptions& o) {
    if (o.bins == 0) throw std::invalid_argument("CSR binned build needs at least one bin");
    if (o.num_vertices != 0) return o.num_vertices;
    if (!(o.load_factor > 0.0)) throw std::invalid_argument("CSR load factor must be positive");
    return std::max<std::uint64_t>(1, std::uint64_t(std::ceil(double(n) / o.load_factor)));
  }

  CsrOptions options_;
  std::uint64_t num_vertices_;
  cuda::device_buffer<std::uint64_t> offsets_;
  cuda::device_buffer<K> keys_;
  cuda::device_buffer<V> values_;
  std::uint64_t size_;
};

}  // namespace metawarp::tables
