// Reduce and softmax kernels with templates that are never instantiated, in the style of
// LeetCUDA's kernels/notes-v1.cu. Those templates name a variable that does not exist and miss
// a semicolon: errors for Clang and for nvcc's host pass (a device-only `nvcc -cubin` says
// nothing). The kernels the errors are not in are analysed all the same; ptxas's figures for
// them come from the file without the broken templates (-DLEAVE_OUT_BROKEN, for nvcc only).
#include <cuda_runtime.h>

#define WARP_SIZE 32

template <const int kWarpSize = WARP_SIZE>
__device__ __forceinline__ float warp_reduce_sum(float val) {
#pragma unroll
  for (int mask = kWarpSize >> 1; mask >= 1; mask >>= 1)
    val += __shfl_xor_sync(0xffffffff, val, mask);
  return val;
}

template <const int NUM_THREADS = 256>
__device__ __forceinline__ float block_reduce_sum(float val) {
  constexpr int NUM_WARPS = (NUM_THREADS + WARP_SIZE - 1) / WARP_SIZE;
  int warp = threadIdx.x / WARP_SIZE;
  int lane = threadIdx.x % WARP_SIZE;
  static __shared__ float shared[NUM_WARPS];
  val = warp_reduce_sum<WARP_SIZE>(val);
  if (lane == 0)
    shared[warp] = val;
  __syncthreads();
  val = (lane < NUM_WARPS) ? shared[lane] : 0.0f;
  val = warp_reduce_sum<NUM_WARPS>(val);
  return val;
}

template <const int NUM_THREADS = 256>
__global__ void block_all_reduce_sum(float *a, float *y, int N) {
  int tid = threadIdx.x;
  int idx = blockIdx.x * NUM_THREADS + tid;
  constexpr int NUM_WARPS = (NUM_THREADS + WARP_SIZE - 1) / WARP_SIZE;
  __shared__ float reduce_smem[NUM_WARPS];
  float sum = (idx < N) ? a[idx] : 0.0f;
  int warp = tid / WARP_SIZE;
  int lane = tid % WARP_SIZE;
  sum = warp_reduce_sum<WARP_SIZE>(sum);
  if (lane == 0)
    reduce_smem[warp] = sum;
  __syncthreads();
  sum = (lane < NUM_WARPS) ? reduce_smem[lane] : 0.0f;
  if (warp == 0)
    sum = warp_reduce_sum<NUM_WARPS>(sum);
  if (tid == 0)
    atomicAdd(y, sum);
}

#ifndef LEAVE_OUT_BROKEN
// Never instantiated, and broken.
template <const int NUM_THREADS = 256>
__global__ void softmax_v2(float *x, float *y, float *total, int N) {
  const int tid = threadIdx.x;
  const int idx = blockIdx.x * blockDim.x + tid;
  float exp_val = (idx < N) ? expf(x[idx]) : 0.0f;
  float sum = block_reduce_sum<NUM_THREADS>(exp_val);
  if (tid == 0)
    atomicAdd(total, sum);
  __threadfence();
  if (idx < N)
    y[idx] = block_smem[tid] / (*total);
}

template <const int NUM_THREADS = 256>
__global__ void layer_norm(float *x, float *y, float g, float b, int N, int K) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  __shared__ float s_mean;
  float value = (idx < N * K) ? x[idx] : 0.0f
  float sum = block_reduce_sum<NUM_THREADS>(value);
  if (threadIdx.x == 0)
    s_mean = sum / (float)K;
  __syncthreads();
  y[idx] = (value - s_mean) * g + b;
}
#endif

template <const int NUM_THREADS = 256>
__global__ void softmax_v1(float *x, float *y, float *total, int N) {
  const int tid = threadIdx.x;
  const int idx = blockIdx.x * blockDim.x + tid;
  float exp_val = (idx < N) ? expf(x[idx]) : 0.0f;
  float sum = block_reduce_sum<NUM_THREADS>(exp_val);
  if (tid == 0)
    atomicAdd(total, sum);
  __threadfence();
  if (idx < N)
    y[idx] = exp_val / (*total);
}

void run(float *a, float *y, float *t, int N) {
  block_all_reduce_sum<256><<<(N + 255) / 256, 256>>>(a, y, N);
  block_all_reduce_sum<128><<<(N + 127) / 128, 128>>>(a, y, N);
  softmax_v1<256><<<(N + 255) / 256, 256>>>(a, y, t, N);
}
