// Multi-value retrieval: store several values per key (a feature -> its
// locations, as the classifier's index does), then fetch all values of a batch
// of keys in the three steps count -> offsets -> retrieve.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "example_support.hpp"
#include "metawarp/cuda/stream.hpp"
#include "metawarp/tables/multi_value_table.cuh"

namespace mw = metawarp;

int main() {
  constexpr std::uint32_t keys_wanted = 10000;
  // Key i + 1 gets (i % 7) + 1 values: 10 * i + 0, 10 * i + 1, ...
  std::vector<std::uint32_t> keys, values;
  for (std::uint32_t i = 0; i < keys_wanted; ++i) {
    for (std::uint32_t v = 0; v <= i % 7; ++v) {
      keys.push_back(i + 1);
      values.push_back(10 * i + v);
    }
  }
  auto d_keys = to_device(keys);
  auto d_values = to_device(values);

  mw::cuda::stream stream;
  mw::tables::MultiValueHashTable<std::uint32_t, std::uint32_t> table(keys.size() * 5 / 4, {},
                                                                    stream.get());
  table.insert(d_keys.data(), d_values.data(), keys.size(), stream.get());

  // Ask for every key once, plus one that is absent (0 values).
  std::vector<std::uint32_t> queries(keys_wanted + 1);
  for (std::uint32_t i = 0; i <= keys_wanted; ++i) queries[i] = i + 1;
  auto d_queries = to_device(queries);
  mw::cuda::device_buffer<std::uint64_t> d_offsets(queries.size() + 1);
  const std::uint64_t total =
      table.retrieve_offsets(d_queries.data(), queries.size(), d_offsets.data(), stream.get());
  mw::cuda::device_buffer<std::uint32_t> d_out(std::max<std::uint64_t>(total, 1));
  table.retrieve(d_queries.data(), queries.size(), d_offsets.data(), d_out.data(), stream.get());
  stream.synchronize();

  const auto offsets = to_host(d_offsets.data(), queries.size() + 1);
  auto out = to_host(d_out.data(), total);
  expect(total == values.size(), "every stored value retrieved once");
  for (std::uint32_t i = 0; i < keys_wanted; ++i) {
    // A key's values come in no particular order: sort before comparing.
    std::sort(out.begin() + offsets[i], out.begin() + offsets[i + 1]);
    expect(offsets[i + 1] - offsets[i] == i % 7 + 1, "values per key");
    for (std::uint64_t j = offsets[i]; j < offsets[i + 1]; ++j) {
      expect(out[j] == 10 * i + (j - offsets[i]), "a value");
    }
  }
  expect(offsets[keys_wanted + 1] == offsets[keys_wanted], "an absent key has no values");
  std::printf("multi_value: %llu values of %u keys retrieved\n", (unsigned long long)total,
              keys_wanted);
  return 0;
}
