// Host bulk use: build a single-value table from device arrays, look keys up,
// read the status word. Exit status 0 when every answer is right.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "example_support.hpp"
#include "metawarp/cuda/stream.hpp"
#include "metawarp/tables/single_value_table.cuh"

namespace mw = metawarp;

int main() {
  constexpr std::uint32_t n = 1 << 20;
  std::vector<std::uint32_t> keys(n), values(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    keys[i] = i * 2654435761u + 1;  // distinct (odd multiplier), never a sentinel here
    values[i] = i;
  }
  auto d_keys = to_device(keys);
  auto d_values = to_device(values);

  mw::cuda::stream stream;
  // Capacity for a load factor of about 0.8.
  mw::tables::SingleValueHashTable<std::uint32_t, std::uint32_t> table(n * 5 / 4, {}, stream.get());
  table.insert(d_keys.data(), d_values.data(), n, stream.get());

  mw::cuda::device_buffer<std::uint32_t> d_found(n);
  table.find(d_keys.data(), n, d_found.data(), /*not_found_value=*/~0u, stream.get());
  stream.synchronize();

  const auto found = to_host(d_found.data(), n);
  for (std::uint32_t i = 0; i < n; ++i) expect(found[i] == values[i], "a stored key's value");
  expect(table.size(stream.get()) == n, "size");
  expect(!table.pop_status(stream.get()).has_error(), "no error in the status word");
  std::printf("host_bulk: %u pairs stored and found, load factor %.2f\n", n,
              table.load_factor(stream.get()));
  return 0;
}
