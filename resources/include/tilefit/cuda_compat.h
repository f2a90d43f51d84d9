// tilefit's CUDA compatibility layer: what nvcc's headers give a CUDA unit and Clang 19's CUDA
// wrapper headers (over the CUDA 13 toolkit) do not. tilefit force-includes it after the CUDA
// runtime headers, in every parse (device and host side, every architecture), so that units
// nvcc compiles also parse with Clang.
//
// Declarations only, and only of what Clang 19 lacks (checked by tests/unit/CompatTest: each
// name here is undeclared in a Clang parse without this header, and a parse with it compiles
// the calls nvcc accepts). Nothing here has a body that could change what tilefit counts: no
// __shared__, __constant__ or local array, no kernel. The list was drawn from public CUDA
// projects (cuda-samples, llm.c, SGEMM_CUDA, LeetCUDA, cuda_hgemm, CCCL's examples, ggml)
// parsed with their own build flags; README.md ("Units nvcc compiles") keeps the list.
#ifndef TILEFIT_CUDA_COMPAT_H
#define TILEFIT_CUDA_COMPAT_H

#if defined(__cplusplus) && defined(__clang__) && defined(__CUDA__)

// ---------------------------------------------------------------------------------------------
// nvcc defines __CUDACC__ as 1, Clang's wrapper as nothing: `#if __CUDACC__` is then an error.
#undef __CUDACC__
#define __CUDACC__ 1

// ---------------------------------------------------------------------------------------------
// The C header nvcc's crt/common_functions.h includes in every pass and Clang's wrapper does
// not: code that calls clock() or names CLOCKS_PER_SEC without including it compiles with nvcc.
// (<stdio.h> and <assert.h> nvcc includes only when compiling for the device, so its host pass
// rejects a printf without them, as Clang does.)
#include <time.h>

// ---------------------------------------------------------------------------------------------
// Cache-hinted loads and stores (sm_32_intrinsics.h). nvcc declares them for these 30 types;
// Clang's wrapper does not include sm_32_intrinsics.h (it defines __ldg itself) and has none
// of them ("use of undeclared identifier '__ldcs'; did you mean '__ldg'?"). The __half and
// __nv_bfloat16 overloads come with cuda_fp16.h and cuda_bf16.h, which parse as they are.
#define __TILEFIT_CACHE_HINTS(T)                                                               \
  __device__ T __ldcg(const T *__ptr);                                                         \
  __device__ T __ldca(const T *__ptr);                                                         \
  __device__ T __ldcs(const T *__ptr);                                                         \
  __device__ T __ldlu(const T *__ptr);                                                         \
  __device__ T __ldcv(const T *__ptr);                                                         \
  __device__ void __stwb(T *__ptr, T __value);                                                 \
  __device__ void __stcg(T *__ptr, T __value);                                                 \
  __device__ void __stcs(T *__ptr, T __value);                                                 \
  __device__ void __stwt(T *__ptr, T __value);
__TILEFIT_CACHE_HINTS(long)
__TILEFIT_CACHE_HINTS(unsigned long)
__TILEFIT_CACHE_HINTS(char)
__TILEFIT_CACHE_HINTS(signed char)
__TILEFIT_CACHE_HINTS(short)
__TILEFIT_CACHE_HINTS(int)
__TILEFIT_CACHE_HINTS(long long)
__TILEFIT_CACHE_HINTS(char2)
__TILEFIT_CACHE_HINTS(char4)
__TILEFIT_CACHE_HINTS(short2)
__TILEFIT_CACHE_HINTS(short4)
__TILEFIT_CACHE_HINTS(int2)
__TILEFIT_CACHE_HINTS(int4)
__TILEFIT_CACHE_HINTS(longlong2)
__TILEFIT_CACHE_HINTS(unsigned char)
__TILEFIT_CACHE_HINTS(unsigned short)
__TILEFIT_CACHE_HINTS(unsigned int)
__TILEFIT_CACHE_HINTS(unsigned long long)
__TILEFIT_CACHE_HINTS(uchar2)
__TILEFIT_CACHE_HINTS(uchar4)
__TILEFIT_CACHE_HINTS(ushort2)
__TILEFIT_CACHE_HINTS(ushort4)
__TILEFIT_CACHE_HINTS(uint2)
__TILEFIT_CACHE_HINTS(uint4)
__TILEFIT_CACHE_HINTS(ulonglong2)
__TILEFIT_CACHE_HINTS(float)
__TILEFIT_CACHE_HINTS(double)
__TILEFIT_CACHE_HINTS(float2)
__TILEFIT_CACHE_HINTS(float4)
__TILEFIT_CACHE_HINTS(double2)
#undef __TILEFIT_CACHE_HINTS

// ---------------------------------------------------------------------------------------------
// min and max in host code. nvcc's crt/math_functions.h declares these overloads __host__
// __device__; Clang's wrapper includes that header with __host__ defined away, so host code
// that calls max(float, float) gets "no matching function for call to 'max'". The device-side
// overloads are Clang's and the toolkit's; these add the host side, with nvcc's signatures.
#define __TILEFIT_MINMAX(R, A, B)                                                              \
  __host__ R min(A __a, B __b);                                                                \
  __host__ R max(A __a, B __b);
__TILEFIT_MINMAX(int, int, int)
__TILEFIT_MINMAX(unsigned int, unsigned int, unsigned int)
__TILEFIT_MINMAX(unsigned int, int, unsigned int)
__TILEFIT_MINMAX(unsigned int, unsigned int, int)
__TILEFIT_MINMAX(long int, long int, long int)
__TILEFIT_MINMAX(unsigned long int, unsigned long int, unsigned long int)
__TILEFIT_MINMAX(unsigned long int, long int, unsigned long int)
__TILEFIT_MINMAX(unsigned long int, unsigned long int, long int)
__TILEFIT_MINMAX(long long int, long long int, long long int)
__TILEFIT_MINMAX(unsigned long long int, unsigned long long int, unsigned long long int)
__TILEFIT_MINMAX(unsigned long long int, long long int, unsigned long long int)
__TILEFIT_MINMAX(unsigned long long int, unsigned long long int, long long int)
__TILEFIT_MINMAX(float, float, float)
__TILEFIT_MINMAX(double, double, double)
__TILEFIT_MINMAX(double, float, double)
__TILEFIT_MINMAX(double, double, float)
#undef __TILEFIT_MINMAX
// isfinite, isinf, isnan, signbit and modf(float, float *) are __host__ __device__ global
// overloads in nvcc's headers; Clang's are device-only. The host side is the C++ library's,
// brought into the global namespace as <math.h> does (a using-declaration may be repeated, a
// second declaration of the same function may not).
using std::isfinite;
using std::isinf;
using std::isnan;
using std::signbit;
using std::modf;
__host__ unsigned int umin(unsigned int __a, unsigned int __b);
__host__ unsigned int umax(unsigned int __a, unsigned int __b);
__host__ long long int llmin(long long int __a, long long int __b);
__host__ long long int llmax(long long int __a, long long int __b);
__host__ unsigned long long int ullmin(unsigned long long int __a, unsigned long long int __b);
__host__ unsigned long long int ullmax(unsigned long long int __a, unsigned long long int __b);

// ---------------------------------------------------------------------------------------------
// Device functions of the toolkit's crt/ headers that Clang's wrapper does not declare.
#if defined(__CUDACC__)
__device__ int __isnand(double);
__device__ int __isinfd(double);
__device__ void *__nv_aligned_device_malloc(__SIZE_TYPE__ __size, __SIZE_TYPE__ __align);

// nvcc's atomic built-ins (CUDA 12.8+: __nv_atomic_load_n, __nv_atomic_fetch_add, ...) and the
// order and scope constants of crt/device_functions.h, which Clang's wrapper keeps out (it
// defines __DEVICE_FUNCTIONS_H__). CUTLASS calls them under `__CUDACC_VER_MAJOR__ > 12`. nvcc
// takes any integral or floating value type; two template parameters leave the value's type
// free of the pointer's, as a built-in's are.
enum {
  __NV_ATOMIC_RELAXED,
  __NV_ATOMIC_CONSUME,
  __NV_ATOMIC_ACQUIRE,
  __NV_ATOMIC_RELEASE,
  __NV_ATOMIC_ACQ_REL,
  __NV_ATOMIC_SEQ_CST
};
enum {
  __NV_THREAD_SCOPE_THREAD,
  __NV_THREAD_SCOPE_BLOCK,
  __NV_THREAD_SCOPE_CLUSTER,
  __NV_THREAD_SCOPE_DEVICE,
  __NV_THREAD_SCOPE_SYSTEM
};
#define __TILEFIT_NV_ATOMIC_RMW(OP)                                                            \
  template <class _T, class _U>                                                                \
  __device__ _T __nv_atomic_fetch_##OP(_T *__ptr, _U __val, int __order,                       \
                                       int __scope = __NV_THREAD_SCOPE_SYSTEM);                \
  template <class _T, class _U>                                                                \
  __device__ void __nv_atomic_##OP(_T *__ptr, _U __val, int __order,                           \
                                   int __scope = __NV_THREAD_SCOPE_SYSTEM);
__TILEFIT_NV_ATOMIC_RMW(add)
__TILEFIT_NV_ATOMIC_RMW(sub)
__TILEFIT_NV_ATOMIC_RMW(min)
__TILEFIT_NV_ATOMIC_RMW(max)
__TILEFIT_NV_ATOMIC_RMW(and)
__TILEFIT_NV_ATOMIC_RMW(or)
__TILEFIT_NV_ATOMIC_RMW(xor)
#undef __TILEFIT_NV_ATOMIC_RMW
template <class _T>
__device__ _T __nv_atomic_load_n(_T *__ptr, int __order, int __scope = __NV_THREAD_SCOPE_SYSTEM);
template <class _T, class _R>
__device__ void __nv_atomic_load(_T *__ptr, _R *__ret, int __order,
                                 int __scope = __NV_THREAD_SCOPE_SYSTEM);
template <class _T, class _U>
__device__ void __nv_atomic_store_n(_T *__ptr, _U __val, int __order,
                                    int __scope = __NV_THREAD_SCOPE_SYSTEM);
template <class _T, class _V>
__device__ void __nv_atomic_store(_T *__ptr, _V *__val, int __order,
                                  int __scope = __NV_THREAD_SCOPE_SYSTEM);
template <class _T, class _U>
__device__ _T __nv_atomic_exchange_n(_T *__ptr, _U __val, int __order,
                                     int __scope = __NV_THREAD_SCOPE_SYSTEM);
template <class _T, class _V, class _R>
__device__ void __nv_atomic_exchange(_T *__ptr, _V *__val, _R *__ret, int __order,
                                     int __scope = __NV_THREAD_SCOPE_SYSTEM);
template <class _T, class _E, class _U>
__device__ bool __nv_atomic_compare_exchange_n(_T *__ptr, _E *__expected, _U __desired,
                                               bool __weak, int __success, int __failure,
                                               int __scope = __NV_THREAD_SCOPE_SYSTEM);
template <class _T, class _E, class _D>
__device__ bool __nv_atomic_compare_exchange(_T *__ptr, _E *__expected, _D *__desired,
                                             bool __weak, int __success, int __failure,
                                             int __scope = __NV_THREAD_SCOPE_SYSTEM);
__device__ void __nv_atomic_thread_fence(int __order, int __scope = __NV_THREAD_SCOPE_SYSTEM);

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 1000
// sm_100's packed float2 arithmetic (crt/sm_100_rt.h).
#define __TILEFIT_FLOAT2_OPS(R)                                                                \
  __device__ float2 __fadd2_##R(float2 __x, float2 __y);                                       \
  __device__ float2 __fmul2_##R(float2 __x, float2 __y);                                       \
  __device__ float2 __ffma2_##R(float2 __x, float2 __y, float2 __z);
__TILEFIT_FLOAT2_OPS(rn)
__TILEFIT_FLOAT2_OPS(rz)
__TILEFIT_FLOAT2_OPS(rd)
__TILEFIT_FLOAT2_OPS(ru)
#undef __TILEFIT_FLOAT2_OPS
#endif
#endif

// ---------------------------------------------------------------------------------------------
// Surface objects (surf2Dwrite, surf3Dread, ...). nvcc's crt/device_functions.h includes
// surface_indirect_functions.h; Clang's wrapper does not (its texture intrinsics implement
// texture fetches only). The toolkit's own declarations are taken, with the handler their
// bodies expand to made a no-op: what a surface access does is not tilefit's business, and
// their signatures stay exactly nvcc's.
#if defined(__CUDACC__) && __has_include(<surface_indirect_functions.h>)
#pragma push_macro("__nv_tex_surf_handler")
#undef __nv_tex_surf_handler
#define __nv_tex_surf_handler(...) ((void)0)
#include <surface_indirect_functions.h>
#pragma pop_macro("__nv_tex_surf_handler")
#endif

#endif // __cplusplus && __clang__ && __CUDA__
#endif // TILEFIT_CUDA_COMPAT_H
