// The same sketch header on the device: every window of random sequences
// (with N runs and lower case) sketched by a kernel equals the host result.
#include <cuda_runtime.h>

#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "metawarp/sketch/host.hpp"
#include "metawarp/sketch/sketch.hpp"

using namespace metawarp::sketch;

namespace {

__global__ void sketch_kernel(const char* seq, std::uint64_t length, SketchParams p,
                              std::uint64_t windows, feature_t* out, std::uint32_t* sizes) {
  const std::uint64_t w = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w < windows) sizes[w] = sketch_window(seq, length, w, p, out + w * p.sketch_size);
}

void check_cuda(cudaError_t e) { REQUIRE(e == cudaSuccess); }

// Device sketches of all windows, one thread per window.
std::vector<std::vector<feature_t>> device_sketches(const std::string& seq, const SketchParams& p) {
  const std::uint64_t windows = window_count(seq.size(), p);
  std::vector<std::vector<feature_t>> result(windows);
  if (windows == 0) return result;
  char* d_seq = nullptr;
  feature_t* d_out = nullptr;
  std::uint32_t* d_sizes = nullptr;
  check_cuda(cudaMalloc(&d_seq, seq.size()));
  check_cuda(cudaMalloc(&d_out, windows * p.sketch_size * sizeof(feature_t)));
  check_cuda(cudaMalloc(&d_sizes, windows * sizeof(std::uint32_t)));
  check_cuda(cudaMemcpy(d_seq, seq.data(), seq.size(), cudaMemcpyHostToDevice));
  const unsigned block = 128;
  sketch_kernel<<<unsigned((windows + block - 1) / block), block>>>(d_seq, seq.size(), p, windows,
                                                                    d_out, d_sizes);
  check_cuda(cudaGetLastError());
  std::vector<feature_t> out(windows * p.sketch_size);
  std::vector<std::uint32_t> sizes(windows);
  check_cuda(cudaMemcpy(out.data(), d_out, out.size() * sizeof(feature_t), cudaMemcpyDeviceToHost));
  check_cuda(cudaMemcpy(sizes.data(), d_sizes, sizes.size() * sizeof(std::uint32_t),
                        cudaMemcpyDeviceToHost));
  cudaFree(d_seq);
  cudaFree(d_out);
  cudaFree(d_sizes);
  for (std::uint64_t w = 0; w < windows; ++w)
    result[w].assign(out.begin() + w * p.sketch_size, out.begin() + w * p.sketch_size + sizes[w]);
  return result;
}

}  // namespace

TEST_CASE("device window sketches equal host sketches") {
  std::mt19937_64 rng(11);
  for (const SketchParams p :
       {SketchParams{16, 127, 16}, SketchParams{1, 1, 1}, SketchParams{32, 40, 64},
        SketchParams{7, 100, 5}, SketchParams{16, 127, 64, Sampling::scaled, 8},
        SketchParams{31, 60, 8, Sampling::scaled, 3}, SketchParams{16, 127, 64, Sampling::minimizer, 12},
        SketchParams{21, 40, 64, Sampling::minimizer, 128}, SketchParams{5, 9, 4, Sampling::minimizer, 2}}) {
    std::string seq(20000, 'A');
    for (char& c : seq) {
      const auto r = rng() % 100;
      c = r < 2 ? 'N' : r < 10 ? "acgt"[rng() % 4] : "ACGT"[rng() % 4];
    }
    INFO("k=" << p.k << " w=" << p.window << " s=" << p.sketch_size << " sampling "
              << int(p.sampling) << ":" << p.sampling_parameter);
    REQUIRE(device_sketches(seq, p) == sketch_all_windows(seq, p));
  }
}
