// The same sketch header on the device: every window of random sequences
// (with N runs and lower case) sketched by a kernel equals the host result,
// from the whole sequence and from a piece holding window_bases (as the GPU
// build's batches hold long targets).
#include <cuda_runtime.h>

#include <algorithm>
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

// Windows [first, first + windows) from a piece of the sequence.
__global__ void piece_kernel(SequenceView piece, std::uint64_t first, SketchParams p,
                             std::uint64_t windows, feature_t* out, std::uint32_t* sizes) {
  const std::uint64_t w = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w < windows) sizes[w] = sketch_window(piece, first + w, p, out + w * p.sketch_size);
}

void check_cuda(cudaError_t e) { REQUIRE(e == cudaSuccess); }

// Device sketches of windows [first, end) (all of them by default), one
// thread per window; with `piece`, from only the bases window_bases names.
std::vector<std::vector<feature_t>> device_sketches(const std::string& seq, const SketchParams& p,
                                                    bool piece = false, std::uint64_t first = 0,
                                                    std::uint64_t end = ~std::uint64_t(0)) {
  end = std::min(end, window_count(seq.size(), p));
  const std::uint64_t windows = end > first ? end - first : 0;
  std::vector<std::vector<feature_t>> result(windows);
  if (windows == 0) return result;
  const BaseRange bases = piece ? window_bases(seq.size(), first, end, p)
                                : BaseRange{0, seq.size()};
  char* d_seq = nullptr;
  feature_t* d_out = nullptr;
  std::uint32_t* d_sizes = nullptr;
  check_cuda(cudaMalloc(&d_seq, bases.end - bases.begin));
  check_cuda(cudaMalloc(&d_out, windows * p.sketch_size * sizeof(feature_t)));
  check_cuda(cudaMalloc(&d_sizes, windows * sizeof(std::uint32_t)));
  check_cuda(cudaMemcpy(d_seq, seq.data() + bases.begin, bases.end - bases.begin,
                        cudaMemcpyHostToDevice));
  const unsigned block = 128;
  const unsigned blocks = unsigned((windows + block - 1) / block);
  if (piece)
    piece_kernel<<<blocks, block>>>(SequenceView{d_seq, bases.begin, seq.size()}, first, p,
                                    windows, d_out, d_sizes);
  else
    sketch_kernel<<<blocks, block>>>(d_seq, seq.size(), p, windows, d_out, d_sizes);
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
    const auto host = sketch_all_windows(seq, p);
    REQUIRE(device_sketches(seq, p) == host);
    for (int cut = 0; cut < 8; ++cut) {  // pieces of 1 to 40 windows
      const std::uint64_t first = rng() % host.size();
      const std::uint64_t end = std::min<std::uint64_t>(host.size(), first + 1 + rng() % 40);
      CAPTURE(first, end);
      REQUIRE(device_sketches(seq, p, true, first, end) ==
              std::vector<std::vector<feature_t>>(host.begin() + first, host.begin() + end));
    }
  }
}
