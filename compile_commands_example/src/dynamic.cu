// Kernels whose shared memory is sized at launch (`extern __shared__`).
#include "kernels.h"

constexpr int kBins = 1024;

// A shared-memory histogram; the launch asks for kBins counters.
__global__ void histogram(const unsigned char *in, unsigned *out, int n) {
  extern __shared__ unsigned bins[];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x)
    bins[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&bins[(in[i] * 4u) % kBins], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x)
    atomicAdd(&out[b], bins[b]);
}

// A sliding window of 7168 float4 (112 KiB): it fits a block on sm_80 and sm_90 after opting in,
// but not on sm_89, whose blocks can have at most 99 KiB.
constexpr int kWindow = 7168;
constexpr size_t kWindowBytes = kWindow * sizeof(float4);

__global__ void window_sum(const float4 *in, float *out, int n) {
  extern __shared__ float4 window[];
  for (int i = threadIdx.x; i < kWindow; i += blockDim.x)
    window[i] = blockIdx.x * kWindow + i < n ? in[blockIdx.x * kWindow + i] : float4{};
  __syncthreads();
  float s = 0;
  for (int i = threadIdx.x; i < kWindow; i += blockDim.x)
    s += window[i].x + window[i].y + window[i].z + window[i].w;
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

void launch_histogram(const unsigned char *in, unsigned *out, int n) {
  histogram<<<64, 256, kBins * sizeof(unsigned)>>>(in, out, n);
}

void launch_window_sum(const float4 *in, float *out, int n) {
  cudaFuncSetAttribute(window_sum, cudaFuncAttributeMaxDynamicSharedMemorySize, kWindowBytes);
  window_sum<<<(n + kWindow - 1) / kWindow, 256, kWindowBytes>>>(in, out, n);
}
