// A tiled SGEMM with a multi-stage shared-memory pipeline, instantiated for two tile shapes.
#include "kernels.h"

template <int BM, int BN, int BK, int STAGES>
__global__ void gemm_tiled(const float *A, const float *B, float *C, int M, int N, int K) {
  __shared__ float As[STAGES][BM][BK];
  __shared__ float Bs[STAGES][BK][BN];
  const int row = blockIdx.y * BM + threadIdx.y;
  const int col = blockIdx.x * BN + threadIdx.x;
  float acc = 0.0f;
  for (int k0 = 0, stage = 0; k0 < K; k0 += BK, stage = (stage + 1) % STAGES) {
    for (int k = threadIdx.x; k < BK; k += blockDim.x)
      As[stage][threadIdx.y % BM][k] = row < M && k0 + k < K ? A[row * K + k0 + k] : 0.0f;
    for (int k = threadIdx.y; k < BK; k += blockDim.y)
      Bs[stage][k][threadIdx.x % BN] = col < N && k0 + k < K ? B[(k0 + k) * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < BK; ++k)
      acc += As[stage][threadIdx.y % BM][k] * Bs[stage][k][threadIdx.x % BN];
    __syncthreads();
  }
  if (row < M && col < N)
    C[row * N + col] = acc;
}

void launch_gemm(const float *A, const float *B, float *C, int M, int N, int K) {
  if (M >= 4096) {
    dim3 block(64, 16), grid((N + 63) / 64, (M + 127) / 128);
    gemm_tiled<128, 64, 16, 3><<<grid, block>>>(A, B, C, M, N, K);
  } else {
    dim3 block(64, 16), grid((N + 63) / 64, (M + 63) / 64);
    gemm_tiled<64, 64, 16, 2><<<grid, block>>>(A, B, C, M, N, K);
  }
}
