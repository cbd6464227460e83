// finalize(): raw (feature, location) entries -> sorted, deduplicated, capped
// FeatureIndex, in parallel and independent of input order and thread count.
//
// Plan (memory: the entries themselves plus the output):
//  1. count entries per bucket of the top bucket_bits of the feature (parallel),
//  2. permute the entries in place into bucket order (American flag sort),
//  3. each bucket independently: sort, dedupe, cap; compact to its front (parallel),
//  4. copy the buckets' results into the output arrays at prefix-sum positions
//     (parallel).
// Every bucket's result depends only on the set of entries in it, so the
// output is the same whatever the input order or the number of threads.
#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <thread>

#include "db/database.hpp"

namespace metawarp::db {
namespace {

constexpr unsigned bucket_bits = 12;
constexpr std::size_t bucket_count = std::size_t(1) << bucket_bits;

std::size_t bucket_of(const Entry& e) { return e.feature >> (32 - bucket_bits); }

// A function object (not a function pointer) so std::sort inlines it.
struct EntryLess {
  bool operator()(const Entry& a, const Entry& b) const {
    if (a.feature != b.feature) return a.feature < b.feature;
    return a.location.packed() < b.location.packed();
  }
};

// Runs job(i) for i in [0, count) on `threads` threads, handing out indices
// one at a time (buckets vary in size).
template <class Job>
void parallel_for(std::size_t count, unsigned threads, Job job) {
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < count;) job(i);
  };
  std::vector<std::jthread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
}

struct BucketResult {
  std::size_t features = 0;
  std::size_t locations = 0;  // compacted entries at the bucket's start
};

// Sorts one bucket, keeps per feature its `cap` smallest distinct locations
// (or none when removing overpopulated features), writing the survivors to the
// front of the range. Writes never overtake reads, so it works in place.
BucketResult reduce_bucket(Entry* begin, Entry* end, const DatabaseParams& params) {
  std::sort(begin, end, EntryLess{});
  const std::size_t cap = params.max_locations_per_feature;
  BucketResult result;
  Entry* out = begin;
  for (Entry* group = begin; group != end;) {
    const feature_t f = group->feature;
    Entry* group_end = group;
    std::size_t distinct = 0;
    while (group_end != end && group_end->feature == f) {
      if (group_end == group || !(group_end->location == (group_end - 1)->location)) ++distinct;
      ++group_end;
    }
    if (!(params.remove_overpopulated_features && distinct > cap)) {
      std::size_t kept = 0;
      for (Entry* e = group; e != group_end && kept < cap; ++e) {
        if (e != group && e->location == (e - 1)->location) continue;
        *out++ = *e;
        ++kept;
      }
      result.features += 1;
      result.locations += kept;
    }
    group = group_end;
  }
  return result;
}

}  // namespace

FeatureIndex finalize(std::vector<Entry> entries, const DatabaseParams& params,
                      unsigned threads) {
  if (params.max_locations_per_feature == 0)
    throw std::invalid_argument("max_locations_per_feature must be at least 1");
  threads = std::max(1u, threads);
  const std::size_t n = entries.size();

  // 1. Bucket sizes, counted on contiguous chunks.
  const std::size_t chunks = threads;
  std::vector<std::vector<std::size_t>> chunk_counts(chunks,
                                                     std::vector<std::size_t>(bucket_count, 0));
  parallel_for(chunks, threads, [&](std::size_t c) {
    const std::size_t b = n * c / chunks, e = n * (c + 1) / chunks;
    for (std::size_t i = b; i < e; ++i) ++chunk_counts[c][bucket_of(entries[i])];
  });
  std::vector<std::size_t> bucket_begin(bucket_count + 1, 0);
  for (std::size_t b = 0; b < bucket_count; ++b) {
    std::size_t size = 0;
    for (const auto& counts : chunk_counts) size += counts[b];
    bucket_begin[b + 1] = bucket_begin[b] + size;
  }
  chunk_counts.clear();

  // 2. In-place permutation into bucket order: each displaced entry is carried
  // to the next free slot of its own bucket until one for this bucket turns up.
  std::vector<std::size_t> head(bucket_begin.begin(), bucket_begin.end() - 1);
  for (std::size_t b = 0; b < bucket_count; ++b) {
    while (head[b] < bucket_begin[b + 1]) {
      Entry carried = entries[head[b]];
      for (std::size_t d = bucket_of(carried); d != b; d = bucket_of(carried))
        std::swap(carried, entries[head[d]++]);
      entries[head[b]++] = carried;
    }
  }
  head.clear();

  // 3. Reduce every bucket independently.
  std::vector<BucketResult> results(bucket_count);
  parallel_for(bucket_count, threads, [&](std::size_t b) {
    results[b] = reduce_bucket(entries.data() + bucket_begin[b],
                               entries.data() + bucket_begin[b + 1], params);
  });

  // 4. Gather into the query layout.
  std::vector<std::size_t> feature_base(bucket_count + 1, 0), location_base(bucket_count + 1, 0);
  for (std::size_t b = 0; b < bucket_count; ++b) {
    feature_base[b + 1] = feature_base[b] + results[b].features;
    location_base[b + 1] = location_base[b] + results[b].locations;
  }
  std::vector<feature_t> features(feature_base.back());
  std::vector<std::uint64_t> offsets(feature_base.back() + 1);
  std::vector<Location> locations(location_base.back());
  offsets.back() = locations.size();
  parallel_for(bucket_count, threads, [&](std::size_t b) {
    const Entry* in = entries.data() + bucket_begin[b];
    std::size_t fi = feature_base[b];
    const std::size_t l_begin = location_base[b];
    for (std::size_t j = 0; j < results[b].locations; ++j) {
      if (j == 0 || in[j].feature != in[j - 1].feature) {
        features[fi] = in[j].feature;
        offsets[fi] = l_begin + j;
        ++fi;
      }
      locations[l_begin + j] = in[j].location;
    }
  });
  std::vector<Entry>().swap(entries);  // free before the lookup is built
  return FeatureIndex(std::move(features), std::move(offsets), std::move(locations));
}

}  // namespace metawarp::db
