#pragma once
// Every header of the library includes this one, so that a consumer compiled
// below C++20 (nvcc's default is C++17) is told so in one plain line, not by
// a hundred errors about std::span. metawarp::core asks for C++20 itself
// (cmake/metawarpConfig.cmake.in); tools/check_install.sh checks both.
#if !defined(__cplusplus) || __cplusplus < 202002L
#error "metawarp needs C++20: compile with -std=c++20 (in CMake: link metawarp::core)"
#endif

// Host/device annotation for code shared by the CPU and GPU paths. This is the
// one place a macro is unavoidable: CUDA's execution-space keywords must
// disappear when a plain C++ compiler reads the same header.
#if defined(__CUDACC__)
#define METAWARP_HD __host__ __device__
#define METAWARP_HD_INLINE __host__ __device__ __forceinline__
#else
#define METAWARP_HD
#define METAWARP_HD_INLINE inline
#endif
