#pragma once
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
