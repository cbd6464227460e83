#pragma once
// `metawarp query --mpi` (docs/scale-out.md, "Several hosts"): the part walk
// (part_walking_engine.hpp) with the parts on other processes. The database
// is cut into as many feature ranges as the MPI job has ranks
// (db::PartialDatabase::plan_parts); rank r loads range r only. Rank 0 runs
// the one query driver (run_query) with this engine: each worker's batch is
// sketched on rank 0, its features broadcast, every rank (0 included) finds
// the hits of the features its part holds (PartHitCollector), the hits come
// back to rank 0, which joins them per feature and decides every read with
// Classifier::decide_features, so the outputs are the whole database's.
// The other ranks answer batches (serve) until rank 0's engine is destroyed.
// With GPUs, each rank uploads its part to one GPU of its host and finds its
// hits there (make_gpu_hit_collector: the same hits as the CPU's), and,
// where every rank can (PartReadDecider; lists of at most 255 locations),
// the reads are decided on rank 0's GPU instead: the engine is then a
// streamed one (start_groups): each group of batches is parsed on rank 0 and
// its reads broadcast; every rank looks them up in its part on its GPU and
// keeps the lists there (the partitioned query's kept chunks); the other
// ranks send theirs to rank 0 as KeptLists (a byte per read slot and 4 per
// hit), which adds them to its own and decides every read with the resident
// GPU engine's kernels.
//
// Built only with MPI (src/pipeline/mpi/); without it
// (src/pipeline/no_mpi/) mpi_place() says that --mpi was not compiled in.
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "db/database.hpp"
#include "pipeline/query/classifier.hpp"
#include "pipeline/query/gpu_query.hpp"
#include "pipeline/query/query.hpp"
#include "pipeline/shard_layout.hpp"

namespace metawarp::pipeline {

// Whether this metawarp was built with MPI (--help says so): metawarp-mpi,
// or metawarp with metawarp-mpi beside it.
bool mpi_compiled_in();

// The MPI engine is linked into metawarp-mpi only (src/CMakeLists.txt says
// why): metawarp re-executes its command line as metawarp-mpi, in the same
// process (mpirun's rank, environment and descriptors kept), or throws
// std::runtime_error where there is none; in metawarp-mpi it does nothing.
void mpi_handoff();

// This process's place in the MPI job.
struct MpiPlace {
  int rank = 0;
  int ranks = 1;
  // Among the ranks of its host (MPI_Comm_split_type, MPI_COMM_TYPE_SHARED:
  // any MPI-3 library, not only OpenMPI's OMPI_COMM_WORLD_LOCAL_RANK).
  int local_rank = 0;
};

// Starts MPI on the first call (threads: one MPI call at a time), and
// finalizes it at exit once the ranks have agreed on their loads. Throws
// std::runtime_error where this metawarp was built without MPI.
MpiPlace mpi_place();

// Thrown on the ranks other than 0 when a rank failed to load its part: rank
// 0 reports the failure (one message for the job), the others end quietly.
struct MpiFailedElsewhere : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Rank 0's account of the exchange (query -v), summed over the batches.
struct MpiStats {
  std::uint64_t batches = 0;
  std::uint64_t features = 0;  // broadcast
  std::uint64_t hits = 0;      // gathered, all ranks
  // In MPI calls: the broadcasts and the gathers (which include waiting for
  // the slowest rank's hits).
  double exchange_seconds = 0;
  double collect_seconds = 0;  // rank 0's own part's hits
  double decide_seconds = 0;   // the reads decided, summed over the worker threads
  std::optional<ShardLayout> gpu;  // rank 0's GPU (mpi_rank_layout), where its part is on one
  GpuPartStats gpu_stats;      // with gpu: rank 0's collector's
  // Decided on rank 0's GPU: the groups of reads broadcast, their reads and
  // bytes, and the kept lists gathered (their hits and bytes). Then
  // exchange_seconds includes packing the reads, collect_seconds is rank 0's
  // reads sent to its GPU and looked up there (beside the exchange),
  // decide_seconds the other ranks' lists added and every read decided.
  std::uint64_t read_groups = 0;
  std::uint64_t reads = 0;
  std::uint64_t bytes_broadcast = 0;
  std::uint64_t bytes_gathered = 0;
  // The next group sent while one is decided (the MPI library allows calls
  // from two threads at once): exchange_seconds then sums the two threads'.
  bool looks_ahead = false;
};

class MpiQueryEngine : public QueryEngine {
 public:
  // The targets, taxonomy and parameters: rank 0 runs the query on them.
  virtual const db::Database& metadata() const = 0;
  // Rank 0: so far.
  virtual MpiStats stats() const = 0;
  // Ranks other than 0: answers rank 0's batches until its engine ends;
  // `verbose`: then says where its time went (the GPUs' path). A failure
  // there ends the job (MPI_Abort): rank 0 waits for the answer.
  virtual void serve(bool verbose) = 0;
};

// Every rank: opens `path`, loads its part and (rank 0) makes the
// classifier; then one collective on every rank's status, so that a rank
// that failed ends the job everywhere before any output is opened: rank 0
// throws std::runtime_error naming the first rank that failed and its error,
// the others throw MpiFailedElsewhere. `threads` load the part. With `gpus`,
// the rank's part goes to one GPU of that list, the same on every host: the
// rank of local rank l takes mpi_rank_layout(*gpus, l); a part that does not
// fit its GPU, or no usable GPU, is that rank's load failure.
// Test hook: the environment variable METAWARP_TEST_MPI_FAIL_RANK=r makes
// rank r fail its load (tests/cli/cli_mpi.sh).
std::unique_ptr<MpiQueryEngine> make_mpi_engine(const std::string& path,
                                                const ClassifierOptions& options,
                                                unsigned threads,
                                                const ShardLayout* gpus = nullptr);

}  // namespace metawarp::pipeline
