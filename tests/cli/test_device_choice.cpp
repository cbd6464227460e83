// --device auto's rule (cli/device_choice.hpp): the measurements it was made
// from come out as they were measured, and the estimate is said in words.
#include <string>

#include "catch.hpp"
#include "cli/device_choice.hpp"

using namespace metawarp::cli;

TEST_CASE("device choice: the CPU where CUDA's start-up dominates, the GPU beyond") {
  // Issue 28: 23 genomes, 120 MB, 32 threads: CPU 0.36 s, one GPU 0.83 s.
  const DeviceChoice small = choose_device(Workload{120'000'000, 32}, build_rates);
  CHECK_FALSE(small.gpu);
  CHECK(small.why.find("input 120.0 MB on 32 threads: about 0.36 s on the CPU, 0.56 s on a GPU") !=
        std::string::npos);
  // 1 GB of genomes on 32 threads: the GPU (about 3 s against 1 s).
  CHECK(choose_device(Workload{1'000'000'000, 32}, build_rates).gpu);
  // On 2 threads the GPU pays from about 10 MB.
  CHECK_FALSE(choose_device(Workload{5'000'000, 2}, build_rates).gpu);
  CHECK(choose_device(Workload{20'000'000, 2}, build_rates).gpu);
  // Issue 29: 1.37 M pairs (864 MB of FASTQ) on 16 threads: CPU 0.83 s, GPU 0.91 s.
  CHECK_FALSE(choose_device(Workload{864'000'000, 16}, query_rates).gpu);
  CHECK(choose_device(Workload{4'000'000'000, 16}, query_rates).gpu);
  // The CPU's rate is not extrapolated past the threads it was measured on (16 for the query):
  // a large input goes to the GPU on a host of 64 cores too, a small one to the CPU (the 1 Gbp
  // set's 1 M pairs, about 630 MB: 1.84 s on 64 CPU threads, 2.41 s on a GPU, benchmarks.md).
  const DeviceChoice many = choose_device(Workload{4'000'000'000, 64}, query_rates);
  CHECK(many.gpu);
  CHECK(many.why.find("on 16 threads") != std::string::npos);
  CHECK_FALSE(choose_device(Workload{630'000'000, 64}, query_rates).gpu);
  // No input known (a pipe) is no reason for the GPU; GPU options and a server are, whatever
  // the input and the threads.
  CHECK_FALSE(choose_device(Workload{0, 1}, build_rates).gpu);
  const DeviceChoice asked = choose_device(Workload{0, 1024, "--gpus given"}, query_rates);
  CHECK(asked.gpu);
  CHECK(asked.why == "--gpus given");
}
