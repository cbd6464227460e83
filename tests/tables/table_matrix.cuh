#pragma once
// The typed test matrix of the table library: every table's configurations,
// written here once, by family; each family is checked against a std
// container by its one suite, and each table's test file runs its row with
// TEMPLATE_LIST_TEST_CASE beside the checks only that table has (so a table
// type is instantiated in one translation unit only, and CI's two cores
// compile the files side by side):
//   single value per key -> std::unordered_map       check_single_value_table (table_checks.cuh)
//     SingleValueTables  test_tables_gpu.cu
//     CuckooTables       test_bucketed_cuckoo_gpu.cu
//     IcebergTables      test_iceberg_gpu.cu
//     PortableMaps       test_portable_map_gpu.cu
//   several values per key -> std::unordered_multimap
//     MultiValueTables   test_tables_gpu.cu              check_multi_value_table (multi_value_checks.cuh)
//     BucketListTables   test_tables_gpu.cu              check_multi_value_table
//     CsrTables          test_csr_table_gpu.cu           check_multi_value_lookups (static: built once)
//   keys only (key_table_checks.cuh, test_small_tables_gpu.cu)
//     CountingTables -> std::unordered_map of counts     check_counting_table
//     HashSets       -> std::unordered_set               check_hash_set
//     BloomFilters   -> no false negatives                check_bloom_filter
// A covering set, not the cartesian product (compile time): in each row every
// value of each axis the table has appears at least once, the table's
// defaults (the configuration users get) among them:
//   key/value widths  u32/u32, u64/u64, u64/u32 where the table allows them
//                     (plus u32/u64, the classifier's feature -> location)
//   layout            packed, AoS, SoA (the cuckoo table is packed only)
//   probing           double hashing, linear probing (the flat tables)
//   group / bucket    1, a middle one, 32 (bucketed tables and the portable
//                     map: 8, 16, 32)
//   hasher            Murmur, Murmur32, xxHash where a table takes one
// The sizes below are pinned (static_assert) so that a configuration dropped
// or added here is seen in review with its instantiation count.
#include <cstdint>
#include <tuple>

// Every table of all.cuh but the CSR table, declared below: its header pulls
// in CUB, about a second of nvcc time in each translation unit that includes
// it, and only test_csr_table_gpu.cu needs the definition.
#include "metawarp/tables/bloom_filter.cuh"
#include "metawarp/tables/bucket_list_table.cuh"
#include "metawarp/tables/bucketed_cuckoo_table.cuh"
#include "metawarp/tables/counting_table.cuh"
#include "metawarp/tables/hash_set.cuh"
#include "metawarp/tables/iceberg_table.cuh"
#include "metawarp/tables/multi_value_table.cuh"
#include "metawarp/tables/portable_map.cuh"
#include "metawarp/tables/single_value_table.cuh"

namespace metawarp::tables {
template <class K, class V, class Hasher, int GroupSize>
class CsrTable;  // csr_table.cuh (its defaults there: MurmurHasher, 4)
}  // namespace metawarp::tables

namespace metawarp::tables::testing::matrix {

using u16 = std::uint16_t;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

// ------------------------------------------------------- single value per key

using SingleValueTables = std::tuple<
    SingleValueHashTable<u32, u32>,  // defaults: packed, double hashing, Murmur, G = 4
    SingleValueHashTable<u64, u64, AosLayout<u64, u64>, LinearProbing, XxHasher, 1>,
    SingleValueHashTable<u32, u32, PackedLayout<u32, u32>, DoubleHashing, MurmurHasher, 32>,
    SingleValueHashTable<u64, u32, SoaLayout<u64, u32>, DoubleHashing, Murmur32Hasher, 8>>;

// Packed only (an eviction moves key and value in one word: key + value <= 8 bytes).
using CuckooTables = std::tuple<BucketedCuckooTable<u32, u32, 8>,
                                BucketedCuckooTable<u32, u32>,  // defaults: B = 16, Murmur
                                BucketedCuckooTable<u32, u32, 32>,
                                BucketedCuckooTable<u32, u16, 16>>;

using IcebergTables = std::tuple<IcebergTable<u32, u32, 8>,
                                 IcebergTable<u32, u32>,  // defaults: B = 16, packed, Murmur
                                 IcebergTable<u64, u64, 16, AosLayout<u64, u64>>,
                                 IcebergTable<u64, u32, 32, SoaLayout<u64, u32>>>;

// Slots are {key, value} structs (the host map's format): no layout axis.
using PortableMaps = std::tuple<DevicePortableMap<u32, u32>,  // defaults: W = 32
                                DevicePortableMap<u64, u32, 16>,
                                DevicePortableMap<u64, u64, 8>>;

// --------------------------------------------------- several values per key

using MultiValueTables = std::tuple<
    MultiValueHashTable<u32, u64>,  // defaults: SoA, double hashing, Murmur, G = 8
    MultiValueHashTable<u32, u32, PackedLayout<u32, u32>, LinearProbing, Murmur32Hasher, 1>,
    MultiValueHashTable<u64, u64, AosLayout<u64, u64>, DoubleHashing, XxHasher, 32>>;

// Keys in a SoA table of list handles: no layout axis.
using BucketListTables =
    std::tuple<BucketListHashTable<u32, u64>,  // defaults: double hashing, Murmur, G = 8
               BucketListHashTable<u64, u32, LinearProbing, XxHasher, 1>,
               BucketListHashTable<u64, u64, DoubleHashing, Murmur32Hasher, 32>>;

// Static CSR arrays: no layout, no probing; one hasher (intersecting two
// tables needs the same one).
using CsrTables = std::tuple<CsrTable<u32, u32, MurmurHasher, 4>,  // the defaults
                             CsrTable<u64, u64, MurmurHasher, 32>,
                             CsrTable<u64, u32, MurmurHasher, 1>>;

// ----------------------------------------------------------------- keys only

using CountingTables = std::tuple<
    CountingHashTable<u32>,  // defaults: u32 counts, packed, double hashing, Murmur, G = 4
    CountingHashTable<u64, u64, AosLayout<u64, u64>, LinearProbing, XxHasher, 1>,
    CountingHashTable<u64, u32, SoaLayout<u64, u32>, DoubleHashing, Murmur32Hasher, 32>>;

using HashSets = std::tuple<HashSet<u64>,  // defaults: double hashing, Murmur, G = 4
                            HashSet<u32, LinearProbing, XxHasher, 1>,
                            HashSet<u64, DoubleHashing, Murmur32Hasher, 32>>;

using BloomFilters = std::tuple<BloomFilter<u32>,  // defaults: Murmur, blocks of 4 words
                                BloomFilter<u32, MurmurHasher, 1>,
                                BloomFilter<u64, XxHasher, 2>>;

static_assert(std::tuple_size_v<SingleValueTables> == 4 && std::tuple_size_v<CuckooTables> == 4 &&
              std::tuple_size_v<IcebergTables> == 4 && std::tuple_size_v<PortableMaps> == 3);
static_assert(std::tuple_size_v<MultiValueTables> == 3 &&
              std::tuple_size_v<BucketListTables> == 3 && std::tuple_size_v<CsrTables> == 3);
static_assert(std::tuple_size_v<CountingTables> == 3 && std::tuple_size_v<HashSets> == 3 &&
              std::tuple_size_v<BloomFilters> == 3);

}  // namespace metawarp::tables::testing::matrix
