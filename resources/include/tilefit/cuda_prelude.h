// tilefit's built-in CUDA prelude: used in place of the CUDA runtime headers when no CUDA
// toolkit is installed, so that plain kernels can still be analysed. It declares the CUDA
// keywords, the builtin variables and the vector types with the sizes and alignments of the
// toolkit's vector_types.h; nothing here has a body that runs.
#ifndef TILEFIT_CUDA_PRELUDE_H
#define TILEFIT_CUDA_PRELUDE_H

#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __align__(n) __attribute__((aligned(n)))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define CUDART_VERSION 13000

#include <__clang_cuda_builtin_vars.h>

#define TILEFIT_VECTOR1(T, N, A) struct __align__(A) N##1 { T x; };
#define TILEFIT_VECTOR2(T, N, A) struct __align__(A) N##2 { T x, y; };
#define TILEFIT_VECTOR3(T, N) struct N##3 { T x, y, z; };
#define TILEFIT_VECTOR4(T, N, A) struct __align__(A) N##4 { T x, y, z, w; };
#define TILEFIT_VECTORS(T, N, S)                                                              \
  TILEFIT_VECTOR1(T, N, S) TILEFIT_VECTOR2(T, N, 2 * S) TILEFIT_VECTOR3(T, N)                  \
  TILEFIT_VECTOR4(T, N, 4 * S)
TILEFIT_VECTORS(signed char, char, 1)
TILEFIT_VECTORS(unsigned char, uchar, 1)
TILEFIT_VECTORS(short, short, 2)
TILEFIT_VECTORS(unsigned short, ushort, 2)
TILEFIT_VECTORS(int, int, 4)
TILEFIT_VECTORS(unsigned int, uint, 4)
TILEFIT_VECTORS(float, float, 4)
TILEFIT_VECTOR1(long, long, 8)
TILEFIT_VECTOR2(long, long, 16)
TILEFIT_VECTOR3(long, long)
TILEFIT_VECTOR1(unsigned long, ulong, 8)
TILEFIT_VECTOR2(unsigned long, ulong, 16)
TILEFIT_VECTOR3(unsigned long, ulong)
TILEFIT_VECTOR1(long long, longlong, 8)
TILEFIT_VECTOR2(long long, longlong, 16)
TILEFIT_VECTOR3(long long, longlong)
TILEFIT_VECTOR1(unsigned long long, ulonglong, 8)
TILEFIT_VECTOR2(unsigned long long, ulonglong, 16)
TILEFIT_VECTOR3(unsigned long long, ulonglong)
TILEFIT_VECTOR1(double, double, 8)
TILEFIT_VECTOR2(double, double, 16)
TILEFIT_VECTOR3(double, double)
// CUDA 13's 4-component 64-bit vectors: the 16-byte-aligned (_16a) and 32-byte-aligned (_32a).
struct __align__(16) long4_16a { long x, y, z, w; };
struct __align__(32) long4_32a { long x, y, z, w; };
struct __align__(16) ulong4_16a { unsigned long x, y, z, w; };
struct __align__(32) ulong4_32a { unsigned long x, y, z, w; };
struct __align__(16) longlong4_16a { long long x, y, z, w; };
struct __align__(32) longlong4_32a { long long x, y, z, w; };
struct __align__(16) ulonglong4_16a { unsigned long long x, y, z, w; };
struct __align__(32) ulonglong4_32a { unsigned long long x, y, z, w; };
struct __align__(16) double4_16a { double x, y, z, w; };
struct __align__(32) double4_32a { double x, y, z, w; };
#undef TILEFIT_VECTOR1
#undef TILEFIT_VECTOR2
#undef TILEFIT_VECTOR3
#undef TILEFIT_VECTOR4
#undef TILEFIT_VECTORS

struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
};

// What `kernel<<<grid, block, bytes, stream>>>(...)` calls (Clang without an SDK version).
extern "C" __host__ int cudaConfigureCall(dim3 grid, dim3 block, unsigned long bytes = 0,
                                          void *stream = 0);

// The attributes a launch above the default per-block limit sets
// (driver_types.h's values), so that code that sets them parses.
enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9
};
extern "C" __host__ int cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr,
                                             int value);
template <class T>
__host__ int cudaFuncSetAttribute(T *entry, enum cudaFuncAttribute attr, int value);

__device__ void __syncthreads();
__device__ int __syncthreads_count(int);
__device__ int __syncthreads_and(int);
__device__ int __syncthreads_or(int);
__device__ void __syncwarp(unsigned int mask = 0xffffffffu);
__device__ void __threadfence();
__device__ void __threadfence_block();

#endif
