#pragma once
// Where the shards of a database live: `--gpus N|LIST` and `--shards-per-gpu`
// (build and query). Shard s covers the s-th feature range and lives on
// device devices[s / shards_per_gpu]; several shards on one GPU exercise the
// same split and exchange as several GPUs (that is how it is tested on one).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace metawarp::pipeline {

// The most shards on one GPU (`--shards-per-gpu`): several exercise the
// multi-GPU split on one device; beyond this they only cost memory.
inline constexpr unsigned max_shards_per_gpu = 64;

struct ShardLayout {
  std::vector<int> devices{0};  // CUDA device numbers, each once
  unsigned shards_per_gpu = 1;

  unsigned shards() const { return unsigned(devices.size()) * shards_per_gpu; }
  int device_of(unsigned shard) const { return devices[shard / shards_per_gpu]; }
  bool single() const { return shards() == 1; }
  bool operator==(const ShardLayout&) const = default;
};

// Parses `--gpus`: "N" is the first N devices (0..N-1), a comma list
// ("0,2,3", or "3," for device 3 alone) names devices. Throws
// std::invalid_argument naming the problem (empty, not a number, negative,
// zero GPUs, a device twice, more than 64). Whether the devices exist is
// checked where they are opened (pipeline/gpu/selected_gpu.hpp).
std::vector<int> parse_gpu_list(const std::string& text);

// An MPI rank's GPU (query --mpi --device gpu): the ranks of one host share
// `layout`'s list, the rank of local rank `local_rank` taking devices[local_rank
// mod their number], with the layout's shards per GPU.
ShardLayout mpi_rank_layout(const ShardLayout& layout, int local_rank);

// Where to cut a feature index into `parts` contiguous shards of about equal
// weight (locations + features): shard s is features [cut[s], cut[s+1]) of
// the sorted arrays (`offsets`: features + 1 list offsets). A feature's list
// is never split; shards may be empty. Used by the GPU upload and by `info`.
std::vector<std::uint64_t> balanced_cuts(std::span<const std::uint64_t> offsets,
                                         std::uint64_t parts);

// "GPU 0" / "GPUs 0,1 (2 shards each)": for messages.
std::string describe(const ShardLayout& layout);

}  // namespace metawarp::pipeline
