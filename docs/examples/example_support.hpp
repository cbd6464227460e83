#pragma once
// What the three examples share: copying between host vectors and device
// buffers, and a check that turns a wrong answer into a failing exit status.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/cuda/error.hpp"

template <class T>
metawarp::cuda::device_buffer<T> to_device(const std::vector<T>& host) {
  metawarp::cuda::device_buffer<T> buffer(host.size());
  metawarp::cuda::check(cudaMemcpy(buffer.data(), host.data(), host.size() * sizeof(T),
                                   cudaMemcpyHostToDevice), "copy to device");
  return buffer;
}

template <class T>
std::vector<T> to_host(const T* device, std::size_t n) {
  std::vector<T> host(n);
  metawarp::cuda::check(cudaMemcpy(host.data(), device, n * sizeof(T), cudaMemcpyDeviceToHost),
                        "copy to host");
  return host;
}

inline void expect(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "example failed: %s\n", what);
    std::exit(1);
  }
}
