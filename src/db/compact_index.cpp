#include "db/compact_index.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#include "metawarp/host/parallel_for.hpp"

namespace metawarp::db::compact {
namespace {

// Little-endian, `width` bytes (the writer only builds on little-endian hosts).
void put(char* out, std::size_t i, std::uint32_t width, std::uint64_t v) {
  std::memcpy(out + i * width, &v, width);
}

// f(i, element i of `in`) for i in [0, n), each width's loop of its own.
template <class F>
void for_each(const char* in, std::size_t n, std::uint32_t width, F f) {
  const auto run = [&](auto word) {
    using W = decltype(word);
    for (std::size_t i = 0; i < n; ++i) {
      W v;
      std::memcpy(&v, in + i * sizeof(W), sizeof(W));
      f(i, std::uint64_t(v));
    }
  };
  switch (width) {
    case 1: return run(std::uint8_t{});
    case 2: return run(std::uint16_t{});
    case 4: return run(std::uint32_t{});
    default: return run(std::uint64_t{});
  }
}

}  // namespace

std::uint32_t count_width(std::uint32_t cap) {
  return cap <= 0xffu ? 1 : cap <= 0xffffu ? 2 : 4;
}

std::uint32_t location_width(std::uint64_t total_windows) {
  return total_windows <= std::uint64_t(std::numeric_limits<std::uint32_t>::max()) + 1 ? 4 : 8;
}

WindowIds::WindowIds(std::span<const Target> targets) {
  base_.reserve(targets.size() + 1);
  base_.push_back(0);
  for (const Target& t : targets) base_.push_back(base_.back() + t.windows);
  const std::uint64_t total = base_.back();
  // About four buckets per target: most lookups step through no target.
  const std::uint64_t buckets = 4 * std::max<std::uint64_t>(targets.size(), 1);
  while ((total >> shift_) > buckets) ++shift_;
  coarse_.resize(std::size_t((total >> shift_) + 1));
  std::uint32_t t = 0;
  for (std::size_t b = 0; b < coarse_.size(); ++b) {
    const std::uint64_t first = std::uint64_t(b) << shift_;
    while (t + 1 < targets.size() && base_[t + 1] <= first) ++t;
    coarse_[b] = t;
  }
}

void encode_counts(const std::uint64_t* offsets, std::size_t first, std::size_t n,
                   std::uint32_t width, char* out) {
  for (std::size_t i = 0; i < n; ++i)
    put(out, i, width, offsets[first + i + 1] - offsets[first + i]);
}

std::uint64_t sum_counts(const char* in, std::size_t n, std::uint32_t width) {
  std::uint64_t sum = 0;
  for_each(in, n, width, [&](std::size_t, std::uint64_t c) { sum += c; });
  return sum;
}

std::uint64_t longest_count(const char* in, std::size_t n, std::uint32_t width) {
  std::uint64_t longest = 0;
  for_each(in, n, width, [&](std::size_t, std::uint64_t c) { longest = std::max(longest, c); });
  return longest;
}

void offsets_from_counts(const char* counts, std::size_t n, std::uint32_t width,
                         std::uint64_t start, std::uint64_t* offsets, unsigned threads) {
  // Two passes: each thread sums its run of counts, then writes its offsets
  // from the sum of the runs before it.
  const std::size_t parts = threads == 0 ? host::parts_for(n, std::size_t(1) << 20)
                                         : std::clamp<std::size_t>(threads, 1, std::max<std::size_t>(n, 1));
  std::vector<std::uint64_t> run_sums(parts + 1, 0);
  const auto run_of = [&](std::size_t p) { return std::pair{n * p / parts, n * (p + 1) / parts}; };
  host::parallel_ranges(parts, parts, [&](std::size_t p, std::size_t) {
    const auto [a, b] = run_of(p);
    run_sums[p + 1] = sum_counts(counts + a * width, b - a, width);
  });
  run_sums[0] = start;
  for (std::size_t p = 1; p <= parts; ++p) run_sums[p] += run_sums[p - 1];
  host::parallel_ranges(parts, parts, [&](std::size_t p, std::size_t) {
    const auto [a, b] = run_of(p);
    std::uint64_t at = run_sums[p];
    for_each(counts + a * width, b - a, width, [&](std::size_t i, std::uint64_t c) {
      offsets[a + i] = at;
      at += c;
    });
  });
  offsets[n] = run_sums[parts];
}

void encode_locations(const Location* in, std::size_t n, const WindowIds& ids,
                      std::uint32_t width, char* out) {
  if (width == 4) {
    for (std::size_t i = 0; i < n; ++i) {
      const auto id = std::uint32_t(ids.id(in[i]));
      std::memcpy(out + 4 * i, &id, 4);
    }
    return;
  }
  for (std::size_t i = 0; i < n; ++i) put(out, i, width, ids.id(in[i]));
}

std::size_t decode_locations(const char* in, std::size_t n, const WindowIds& ids,
                             std::uint32_t width, Location* out) {
  const std::uint64_t total = ids.total();
  if (width == 4) {  // the common case, its load a plain 32-bit one
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t id;
      std::memcpy(&id, in + 4 * i, 4);
      if (id >= total) return i;
      out[i] = ids.location(id);
    }
    return n;
  }
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t id = element_at(in, i, width);
    if (id >= total) return i;
    out[i] = ids.location(id);
  }
  return n;
}

std::uint64_t element_at(const char* in, std::size_t i, std::uint32_t width) {
  std::uint64_t v = 0;
  std::memcpy(&v, in + i * width, width);
  return v;
}

}  // namespace metawarp::db::compact
