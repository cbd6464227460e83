// finalize(): raw (feature, location) entries -> sorted, deduplicated, capped
// FeatureIndex, in parallel and independent of input order and thread count.
//
// Plan:
//  1. each input part (a worker's arrays, or a slice of one vector) counts its
//     entries per bucket of the top bucket_bits of the feature and notes the
//     largest target and window (parallel over parts),
//  2. each part scatters its entries into one bucket-ordered array (parallel
//     over parts, every part writing to its own reserved ranges); when
//     (low feature bits, target, window) fit 64 bits the entries are packed
//     into one integer key on the way, so a bucket is sorted as plain u64s by
//     an LSD radix sort; otherwise entries are kept whole and sorted by
//     comparison,
//  3. each bucket independently: sort, dedupe, cap; compact to its front (parallel),
//  4. copy the buckets' results into the output arrays at prefix-sum positions
//     (parallel).
// Every bucket's result depends only on the set of entries in it, so the
// output is the same whatever the input order, the split into parts or the
// number of threads.
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <utility>

#include "db/database.hpp"
#include "metawarp/host/parallel_for.hpp"
#include "metawarp/host/thread_group.hpp"
#include "metawarp/index/cap_rule.hpp"

namespace metawarp::db {
namespace {

constexpr unsigned bucket_bits = 12;
constexpr std::size_t bucket_count = std::size_t(1) << bucket_bits;
constexpr unsigned in_bucket_feature_bits = 32 - bucket_bits;

std::size_t bucket_of(feature_t f) { return f >> in_bucket_feature_bits; }

using Part = std::vector<std::span<const Entry>>;

// The entries to finalize, as parts scattered by one thread each, and how to
// give their memory back: piece by piece as soon as it has been scattered
// (freeing gigabytes takes time too, so each thread frees its own), or all at
// once after the scatter.
struct Input {
  std::vector<Part> parts;
  std::function<void(std::size_t part, std::size_t piece)> release_piece;
  std::function<void()> release_all;
};

// Bucket order with whole entries: works for any target and window values.
struct EntryCodec {
  using Key = Entry;
  Key encode(const Entry& e) const { return e; }
  feature_t feature(const Key& k, std::size_t) const { return k.feature; }
  Location location(const Key& k) const { return k.location; }
  static std::uint64_t location_bits(const Key& k) { return k.location.packed(); }
  static feature_t feature_bits(const Key& k) { return k.feature; }
  void sort(Key* begin, Key* end, std::vector<Key>&) const {
    std::sort(begin, end, [](const Entry& a, const Entry& b) {
      if (a.feature != b.feature) return a.feature < b.feature;
      return a.location.packed() < b.location.packed();
    });
  }
};

// Sorts n keys of which only the low `bits` bits can be non-zero, least
// significant digit first; digits on which all keys agree are skipped.
void radix_sort(std::uint64_t* keys, std::size_t n, unsigned bits,
                std::vector<std::uint64_t>& scratch) {
  if (n < 96) {
    std::sort(keys, keys + n);
    return;
  }
  if (scratch.size() < n) scratch.resize(n);
  const unsigned passes = (bits + 10) / 11;
  if (passes == 0) return;
  const unsigned digit_bits = (bits + passes - 1) / passes;
  const std::uint64_t mask = (std::uint64_t(1) << digit_bits) - 1;
  std::array<std::uint32_t, 2048> count;
  std::uint64_t* src = keys;
  std::uint64_t* dst = scratch.data();
  for (unsigned pass = 0; pass < passes; ++pass) {
    const unsigned shift = pass * digit_bits;
    std::fill_n(count.begin(), mask + 1, 0u);
    for (std::size_t i = 0; i < n; ++i) ++count[(src[i] >> shift) & mask];
    if (count[(src[0] >> shift) & mask] == n) continue;  // all equal: order unchanged
    std::uint32_t sum = 0;
    for (std::size_t d = 0; d <= mask; ++d) sum += std::exchange(count[d], sum);
    for (std::size_t i = 0; i < n; ++i) dst[count[(src[i] >> shift) & mask]++] = src[i];
    std::swap(src, dst);
  }
  if (src != keys) std::memcpy(keys, src, n * sizeof(std::uint64_t));
}

// Bucket order with packed keys: (low feature bits, target, window) in one
// u64, whose integer order is the (feature, target, window) order within a
// bucket. Usable when those fields fit 64 bits.
struct PackedCodec {
  using Key = std::uint64_t;
  unsigned window_bits;
  unsigned location_shift;  // target bits + window bits
  unsigned key_bits;        // in_bucket_feature_bits + location_shift

  Key encode(const Entry& e) const {
    return (std::uint64_t(e.feature & ((1u << in_bucket_feature_bits) - 1)) << location_shift) |
           (std::uint64_t(e.location.target) << window_bits) | e.location.window;
  }
  feature_t feature(Key k, std::size_t bucket) const {
    return feature_t(bucket << in_bucket_feature_bits) | feature_t(k >> location_shift);
  }
  Location location(Key k) const {
    const std::uint64_t loc = location_shift == 0 ? 0 : k & ((~0ull) >> (64 - location_shift));
    return Location{std::uint32_t(loc >> window_bits),
                    std::uint32_t(loc & ((std::uint64_t(1) << window_bits) - 1))};
  }
  // Equal-feature and equal-location tests need no unpacking.
  std::uint64_t location_bits(Key k) const {
    return location_shift == 0 ? 0 : k & ((~0ull) >> (64 - location_shift));
  }
  feature_t feature_bits(Key k) const { return feature_t(k >> location_shift); }
  void sort(Key* begin, Key* end, std::vector<Key>& scratch) const {
    radix_sort(begin, std::size_t(end - begin), key_bits, scratch);
  }
};

struct BucketResult {
  std::size_t features = 0;
  std::size_t locations = 0;  // compacted keys at the bucket's start
};

// Sorts one bucket and keeps of each feature the locations the cap rule
// (metawarp/index/cap_rule.hpp) allows, its smallest distinct ones, writing
// the survivors to the front of the range in one pass: a feature's distinct
// locations are written up to the cap while they are counted, and cut back to
// what the rule keeps once the count is known. Writes never overtake reads, so
// it works in place.
template <class Codec>
BucketResult reduce_bucket(const Codec& codec, typename Codec::Key* begin,
                           typename Codec::Key* end, const index::CapRule& rule,
                           std::vector<typename Codec::Key>& scratch) {
  using Key = typename Codec::Key;
  codec.sort(begin, end, scratch);
  BucketResult result;
  Key* out = begin;
  for (Key* group = begin; group != end;) {
    const feature_t f = codec.feature_bits(*group);
    Key* const group_out = out;
    std::uint64_t distinct = 0;
    Key* e = group;
    for (; e != end && codec.feature_bits(*e) == f; ++e) {
      if (e != group && codec.location_bits(*e) == codec.location_bits(*(e - 1))) continue;
      if (distinct++ < rule.max_locations) *out++ = *e;
    }
    const std::uint64_t kept = index::kept_locations(distinct, rule);
    out = group_out + kept;
    result.features += kept > 0;
    result.locations += kept;
    group = e;
  }
  return result;
}

struct PartSummary {
  std::vector<std::size_t> bucket_sizes = std::vector<std::size_t>(bucket_count, 0);
  std::uint32_t max_target = 0;
  std::uint32_t max_window = 0;
};

template <class Codec>
FeatureIndex finalize_with(const Codec& codec, const Input& input,
                           const std::vector<PartSummary>& summaries,
                           const DatabaseParams& params, unsigned threads) {
  using Key = typename Codec::Key;
  const std::vector<Part>& parts = input.parts;
  // Where each part writes its entries of each bucket.
  std::vector<std::size_t> bucket_begin(bucket_count + 1, 0);
  std::vector<std::vector<std::size_t>> cursor(parts.size(),
                                               std::vector<std::size_t>(bucket_count));
  std::size_t position = 0;
  for (std::size_t b = 0; b < bucket_count; ++b) {
    bucket_begin[b] = position;
    for (std::size_t p = 0; p < parts.size(); ++p) {
      cursor[p][b] = position;
      position += summaries[p].bucket_sizes[b];
    }
  }
  bucket_begin[bucket_count] = position;
  // At most one location per entry survives: the location array is allocated
  // and zeroed (page faults, gigabytes on big inputs) by a thread of its own
  // while the entries are scattered and sorted, and trimmed afterwards.
  IndexArray<Location> locations;
  host::ThreadGroup zero_locations;
  zero_locations.spawn([&locations, position] { locations.assign(position, Location{}); });

  // 2. Scatter into bucket order.
  std::unique_ptr<Key[]> keys(new Key[position]);
  host::parallel_for(parts.size(), threads, [&](std::size_t p) {
    std::size_t* next = cursor[p].data();
    Key* out = keys.get();
    for (std::size_t piece = 0; piece < parts[p].size(); ++piece) {
      for (const Entry& e : parts[p][piece]) out[next[bucket_of(e.feature)]++] = codec.encode(e);
      if (input.release_piece) input.release_piece(p, piece);
    }
  });
  cursor.clear();
  if (input.release_all) input.release_all();

  // 3. Reduce every bucket independently.
  std::vector<BucketResult> results(bucket_count);
  std::vector<std::vector<Key>> scratch(threads);  // per thread
  host::parallel_for(bucket_count, threads, [&](std::size_t b, unsigned worker) {
    results[b] = reduce_bucket(codec, keys.get() + bucket_begin[b],
                               keys.get() + bucket_begin[b + 1], params.cap_rule(),
                               scratch[worker]);
  });
  scratch.clear();

  // 4. Gather into the query layout.
  std::vector<std::size_t> feature_base(bucket_count + 1, 0), location_base(bucket_count + 1, 0);
  for (std::size_t b = 0; b < bucket_count; ++b) {
    feature_base[b + 1] = feature_base[b] + results[b].features;
    location_base[b + 1] = location_base[b] + results[b].locations;
  }
  zero_locations.join();
  locations.resize(location_base.back());
  // Features and offsets are allocated and zeroed (first touch: page faults,
  // gigabytes on big inputs) by two threads while the others gather the
  // locations; then all gather the features and offsets.
  IndexArray<feature_t> features;
  IndexArray<std::uint64_t> offsets;
  {
    host::ThreadGroup zeroing;
    zeroing.spawn([&] { features.assign(feature_base.back(), 0); });
    zeroing.spawn([&] { offsets.assign(feature_base.back() + 1, 0); });
    host::parallel_for(bucket_count, std::max(2u, threads) - 1, [&](std::size_t b) {
      const Key* in = keys.get() + bucket_begin[b];
      Location* out = locations.data() + location_base[b];
      for (std::size_t j = 0; j < results[b].locations; ++j) out[j] = codec.location(in[j]);
    });
    zeroing.join();
  }
  offsets.back() = locations.size();
  host::parallel_for(bucket_count, threads, [&](std::size_t b) {
    const Key* in = keys.get() + bucket_begin[b];
    std::size_t fi = feature_base[b];
    const std::size_t l_begin = location_base[b];
    for (std::size_t j = 0; j < results[b].locations; ++j) {
      if (j == 0 || codec.feature_bits(in[j]) != codec.feature_bits(in[j - 1])) {
        features[fi] = codec.feature(in[j], b);
        offsets[fi] = l_begin + j;
        ++fi;
      }
    }
  });
  // Giving gigabytes back takes a while: done while the index checks itself.
  host::ThreadGroup free_keys;
  free_keys.spawn([k = std::move(keys)]() mutable { k.reset(); });
  return FeatureIndex(std::move(features), std::move(offsets), std::move(locations));
}

FeatureIndex finalize_input(const Input& input, const DatabaseParams& params, unsigned threads) {
  const std::vector<Part>& parts = input.parts;
  if (params.max_locations_per_feature == 0)
    throw std::invalid_argument("max_locations_per_feature must be at least 1");
  threads = std::max(1u, threads);

  // 1. Bucket sizes and value ranges, per part.
  std::vector<PartSummary> summaries(parts.size());
  host::parallel_for(parts.size(), threads, [&](std::size_t p) {
    PartSummary& s = summaries[p];
    std::uint32_t max_target = 0, max_window = 0;
    for (std::span<const Entry> piece : parts[p])
      for (const Entry& e : piece) {
        ++s.bucket_sizes[bucket_of(e.feature)];
        max_target = std::max(max_target, e.location.target);
        max_window = std::max(max_window, e.location.window);
      }
    s.max_target = max_target;
    s.max_window = max_window;
  });
  std::uint32_t max_target = 0, max_window = 0;
  for (const PartSummary& s : summaries) {
    max_target = std::max(max_target, s.max_target);
    max_window = std::max(max_window, s.max_window);
  }
  const unsigned target_bits = unsigned(std::bit_width(max_target));
  const unsigned window_bits = unsigned(std::bit_width(max_window));
  if (in_bucket_feature_bits + target_bits + window_bits <= 64) {
    const PackedCodec codec{window_bits, target_bits + window_bits,
                            in_bucket_feature_bits + target_bits + window_bits};
    return finalize_with(codec, input, summaries, params, threads);
  }
  return finalize_with(EntryCodec{}, input, summaries, params, threads);
}

}  // namespace

FeatureIndex finalize(std::vector<Entry> entries, const DatabaseParams& params,
                      unsigned threads) {
  // Contiguous slices, one per thread, counted and scattered in parallel.
  const std::size_t slices = std::max(1u, threads);
  const std::size_t n = entries.size();
  Input input;
  input.parts.resize(slices);
  for (std::size_t s = 0; s < slices; ++s) {
    const std::size_t begin = n * s / slices, end = n * (s + 1) / slices;
    input.parts[s].push_back(std::span<const Entry>(entries.data() + begin, end - begin));
  }
  input.release_all = [&] { std::vector<Entry>().swap(entries); };
  return finalize_input(input, params, threads);
}

FeatureIndex finalize_chunks(std::vector<EntryChunks> parts, const DatabaseParams& params,
                             unsigned threads) {
  Input input;
  input.parts.resize(parts.size());
  for (std::size_t p = 0; p < parts.size(); ++p)
    for (const auto& chunk : parts[p]) input.parts[p].push_back(std::span<const Entry>(chunk));
  input.release_piece = [&](std::size_t p, std::size_t piece) {
    std::vector<Entry>().swap(parts[p][piece]);
  };
  return finalize_input(input, params, threads);
}

}  // namespace metawarp::db
