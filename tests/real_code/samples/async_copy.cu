// Matrix multiplication with asynchronous copies from global to shared memory, in the style of
// the cuda-samples' globalToShmemAsyncCopy: a cuda::barrier, a pipeline's shared state, and
// tiles aligned for float4 copies with `alignas` written after `__shared__`.
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda_runtime.h>
#include <stdio.h>

namespace cg = cooperative_groups;

// Multi-stage pipeline: the stages' tiles, aligned for float4.
template <int BLOCK_SIZE>
__global__ void MatrixMulAsyncCopyMultiStageLargeChunk(float *__restrict__ C,
                                                       const float *__restrict__ A,
                                                       const float *__restrict__ B, int wA,
                                                       int wB) {
  constexpr size_t maxPipelineStages = 4;
  __shared__ alignas(alignof(float4)) float As[maxPipelineStages][BLOCK_SIZE][BLOCK_SIZE];
  __shared__ alignas(alignof(float4)) float Bs[maxPipelineStages][BLOCK_SIZE][BLOCK_SIZE];
  float Csub = 0.0;
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  const int t4x = threadIdx.x * 4;
  for (int i = 0; i < maxPipelineStages; ++i) {
    pipe.producer_acquire();
    cuda::memcpy_async(&As[i][threadIdx.y][t4x], &A[wA * threadIdx.y + t4x], sizeof(float4),
                       pipe);
    cuda::memcpy_async(&Bs[i][threadIdx.y][t4x], &B[wB * threadIdx.y + t4x], sizeof(float4),
                       pipe);
    pipe.producer_commit();
  }
  cuda::pipeline_consumer_wait_prior<maxPipelineStages - 1>(pipe);
  __syncthreads();
  for (int k = 0; k < BLOCK_SIZE; ++k)
    Csub += As[k % maxPipelineStages][threadIdx.y][k] * Bs[k % maxPipelineStages][k][threadIdx.x];
  pipe.consumer_release();
  C[wB * threadIdx.y + threadIdx.x] = Csub;
}

// Single stage with a barrier: the barrier first, then the aligned tiles.
template <int BLOCK_SIZE>
__global__ void MatrixMulAsyncCopySingleStage(float *C, const float *A, const float *B, int wA,
                                              int wB) {
#pragma diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  __shared__ alignas(alignof(float4)) float As[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ alignas(alignof(float4)) float Bs[BLOCK_SIZE][BLOCK_SIZE];
  if (threadIdx.x == 0)
    init(&bar, blockDim.x * blockDim.y);
  __syncthreads();
  auto cta = cg::this_thread_block();
  cuda::memcpy_async(cta, &As[0][0], A, sizeof(As), bar);
  cuda::memcpy_async(cta, &Bs[0][0], B, sizeof(Bs), bar);
  bar.arrive_and_wait();
  float Csub = 0;
  for (int k = 0; k < BLOCK_SIZE; ++k)
    Csub += As[threadIdx.y][k] * Bs[k][threadIdx.x];
  C[wB * threadIdx.y + threadIdx.x] = Csub;
}

// Shared pipeline state for the whole block.
template <int BLOCK_SIZE_X>
__global__ void MatrixMulAsyncCopyMultiStageSharedState(float *C, const float *A, const float *B,
                                                        int wA, int wB) {
  constexpr size_t maxPipelineStages = 4;
  __shared__ float As[maxPipelineStages][BLOCK_SIZE_X][BLOCK_SIZE_X];
  __shared__ float Bs[maxPipelineStages][BLOCK_SIZE_X][BLOCK_SIZE_X];
  auto cta = cg::this_thread_block();
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, maxPipelineStages> shared_state;
  auto pipe = cuda::make_pipeline(cta, &shared_state);
  pipe.producer_acquire();
  cuda::memcpy_async(cta, &As[0][0][0], A, sizeof(float) * BLOCK_SIZE_X * BLOCK_SIZE_X, pipe);
  cuda::memcpy_async(cta, &Bs[0][0][0], B, sizeof(float) * BLOCK_SIZE_X * BLOCK_SIZE_X, pipe);
  pipe.producer_commit();
  pipe.consumer_wait();
  float Csub = 0;
  for (int k = 0; k < BLOCK_SIZE_X; ++k)
    Csub += As[0][threadIdx.y][k] * Bs[0][k][threadIdx.x];
  pipe.consumer_release();
  C[wB * threadIdx.y + threadIdx.x] = Csub;
}

int MatrixMultiply(float *d_C, const float *d_A, const float *d_B, int block_size) {
  dim3 threads(block_size, block_size);
  dim3 grid(4, 4);
  if (block_size == 16) {
    MatrixMulAsyncCopyMultiStageLargeChunk<16><<<grid, dim3(4, 16)>>>(d_C, d_A, d_B, 64, 64);
    MatrixMulAsyncCopySingleStage<16><<<grid, threads>>>(d_C, d_A, d_B, 64, 64);
    MatrixMulAsyncCopyMultiStageSharedState<16><<<grid, threads>>>(d_C, d_A, d_B, 64, 64);
  } else {
    MatrixMulAsyncCopySingleStage<32><<<grid, threads>>>(d_C, d_A, d_B, 64, 64);
  }
  printf("done\n");
  return cudaDeviceSynchronize();
}
