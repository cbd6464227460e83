#pragma once
// What `metawarp build` is asked to do, and what it reports.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "db/database.hpp"
#include "metawarp/index/feature_range.hpp"
#include "metawarp/sketch/sampling.hpp"
#include "output/output_check.hpp"
#include "pipeline/shard_layout.hpp"

namespace metawarp::pipeline {

enum class BuildTable { multi_value, bucket_list };

// GPU executor settings; the database does not depend on any of them.
struct GpuBuildOptions {
  BuildTable table = BuildTable::multi_value;
  std::uint64_t batch_bases = std::uint64_t(64) << 20;  // bases per host->device batch
  std::uint64_t memory_limit = 0;    // bytes of GPU memory to use; 0: what is free
  std::uint64_t table_capacity = 0;  // (feature, location) slots; 0: sized from the input
  int device = 0;                    // the device of one executor (one shard)
  // The shards of the database (`--gpus`, `--shards-per-gpu`): one table per
  // shard, each on its device with its own feature range, filled by every
  // GPU's sketches (gpu/multi_gpu_build_executor.hpp). One shard: `device`
  // alone.
  ShardLayout layout{{0}, 1};
  bool layout_given = false;  // --gpus named; else the layout is {device}
  // Pinned bytes per writer thread through which the finished index is
  // copied down as the file is written (gpu/device_index.hpp); 0: its
  // default. Small in tests, so that a piece takes many copies.
  std::size_t staging_bytes = 0;
};

// Host bytes a build holds per (feature, location) pair of the part it is
// building: the sketched entries (12 bytes), the finalize's bucket copy
// (8-12) and the finished index (8 per location and 12 per feature). The
// rule that turns --partition-size into a number of partitions and a limit.
inline constexpr std::uint64_t host_bytes_per_pair = 32;

// The most partitions a build is cut into, asked for or needed: each reads
// every reference once, so more would take longer than any memory saves.
inline constexpr unsigned max_partitions = 65536;

struct BuildOptions {
  std::vector<std::string> references;            // files or directories
  std::filesystem::path taxonomy_dir;             // NCBI dump folder
  // GTDB taxonomy TSVs (instead of taxonomy_dir): the taxonomy synthesised,
  // genomes mapped by the accession their file names start with.
  std::vector<std::filesystem::path> gtdb_taxonomy_files;
  std::vector<std::string> seqid2taxid_files;     // Kraken2 two-column maps
  std::vector<std::string> accession2taxid_files; // NCBI accession2taxid
  // The default database: sketch::default_sampling and its parameters.
  db::DatabaseParams params{sketch::default_sketch_params(sketch::default_sampling,
                                                          sketch::default_sampling_parameter)};
  unsigned threads = 1;
  bool quiet = false;
  // Without a taxonomy every read is unclassified, and without sequences the
  // database is empty: both are errors unless the caller says they are wanted.
  bool allow_no_taxonomy = false;
  bool allow_empty = false;
  // A taxonomy given but no target mapped to a taxon (no seqid map, say):
  // the database would classify nothing, so the build is an error unless
  // this says it is wanted (--allow-no-taxa).
  bool allow_no_taxa = false;
  // Files the caller writes for the whole build (--summary-json): checked
  // with the database before any work (the output path rule, distinct from
  // the database and every file the build reads), written by the caller.
  std::vector<output::NamedPath> run_outputs;
  GpuBuildOptions gpu;
  // The features this build keeps (index/feature_range.hpp): all of them for
  // a whole database, one part's range for the executor of a shard or a
  // partition. The driver and the sharded executor set it, not the user.
  index::FeatureRange features;
  // Partitions (build.cpp): the database is built in this many feature
  // ranges, one pass over the references each, each part written as it
  // completes. 0: as many as the memory limits need (1 without limits).
  unsigned partitions = 0;
  // Host bytes one partition may use (host_bytes_per_pair per pair); 0: no
  // limit. The CPU executor stops with PartitionTooLarge beyond it.
  std::uint64_t partition_bytes = 0;
  // CPU: shards built side by side in one pass (one executor each, the
  // threads divided among them). The database does not depend on it.
  unsigned cpu_shards = 1;
  // Whether the database is fsynced where it replaces no file (--sync,
  // --no-sync; a replaced database always is: docs/reliability.md).
  output::Sync sync = output::Sync::always;
};

struct BuildSummary {
  std::uint64_t files = 0;
  std::uint64_t targets = 0;
  std::uint64_t bases = 0;          // sequence bytes parsed
  std::uint64_t input_bytes = 0;    // uncompressed file bytes parsed
  std::uint64_t features = 0;
  std::uint64_t locations = 0;
  std::uint64_t unmapped_targets = 0;
  // What deserves a warning, by name (the CLI prints the first few of each).
  std::vector<std::string> unmapped_target_names;  // no taxon, or a taxid the taxonomy lacks
  std::vector<std::string> duplicate_target_names; // names given to more than one target
  std::vector<std::string> repeated_files;         // named more than once; read once
  std::vector<std::string> unknown_ranks;          // NCBI rank names metawarp does not know
  // Wall time of the driver's stages.
  double seconds_prepare = 0;      // options checked, inputs listed, taxonomy loaded, partitions planned
  double seconds_setup = 0;        // the executor made ready (GPU: table, buffers, streams)
  double seconds_read_sketch = 0;  // reading, with the executor's work overlapped
  double seconds_read_wait = 0;    // of which the driver waited for the readers' records
  // Sort, dedupe, cap: the query layout, on the host (a GPU's downloaded
  // here when the host keeps it: partitions, build_database).
  double seconds_finalize = 0;
  // The database file (run_build); with one partition, a GPU's index is
  // copied down as it is written, so its download is counted here. In
  // partitions, a GPU part is appended while the next is built: only the
  // wait for it is counted.
  double seconds_write = 0;
  // The executor's own account of where its time went, one line, e.g.
  // "GPU: table 2.10 GiB; ... download 0.52 s" (empty: nothing to add).
  std::string executor_stages;
  unsigned partitions = 1;  // feature ranges built one after another
};

}  // namespace metawarp::pipeline
