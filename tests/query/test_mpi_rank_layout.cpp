// Which GPU an MPI rank's part goes to (query --mpi --device gpu;
// pipeline/shard_layout.hpp, mpi_rank_layout): the ranks of a host share the
// --gpus list, local rank l taking its device l mod the list's length.
#include "catch.hpp"
#include "pipeline/shard_layout.hpp"

using namespace metawarp::pipeline;

TEST_CASE("mpi_rank_layout: local rank l takes device l mod the list, with the list's shards") {
  const ShardLayout four{{0, 1, 2, 3}, 1};
  for (int l = 0; l < 4; ++l) CHECK(mpi_rank_layout(four, l) == ShardLayout{{l}, 1});
  CHECK(mpi_rank_layout(four, 5) == ShardLayout{{1}, 1});
  const ShardLayout named{{3, 1}, 2};  // --gpus 3,1 --shards-per-gpu 2
  CHECK(mpi_rank_layout(named, 0) == ShardLayout{{3}, 2});
  CHECK(mpi_rank_layout(named, 1) == ShardLayout{{1}, 2});
  CHECK(mpi_rank_layout(named, 2) == ShardLayout{{3}, 2});
  const ShardLayout one{{0}, 1};  // no --gpus: every rank on GPU 0
  CHECK(mpi_rank_layout(one, 7) == one);
}
