#pragma once
// Every table type of the library in one include.
#include "metawarp/tables/bloom_filter.cuh"
#include "metawarp/tables/bucket_list_table.cuh"
#include "metawarp/tables/bucketed_cuckoo_table.cuh"
#include "metawarp/tables/counting_table.cuh"
#include "metawarp/tables/csr_table.cuh"
#include "metawarp/tables/hash_set.cuh"
#include "metawarp/tables/iceberg_table.cuh"
#include "metawarp/tables/multi_value_table.cuh"
#include "metawarp/tables/portable_map.cuh"
#include "metawarp/tables/single_value_table.cuh"
