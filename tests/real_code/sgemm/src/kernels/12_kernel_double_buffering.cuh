#pragma once

#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda_runtime.h>

namespace db {
template <const int BM, const int BN, const int BK, const int rowStrideA, const int rowStrideB>
__device__ void loadFromGmem(int N, int K, float *A, float *B, float *As, float *Bs,
                             int innerRowA, int innerColA, int innerRowB, int innerColB,
                             cuda::barrier<cuda::thread_scope::thread_scope_block> &barrier) {
  for (uint offset = 0; offset + rowStrideA <= BM; offset += rowStrideA)
    cuda::memcpy_async(&As[(innerColA * 4 + 0) * BM + innerRowA + offset],
                       &A[(innerRowA + offset) * K + innerColA * 4], cuda::aligned_size_t<16>(16),
                       barrier);
  for (uint offset = 0; offset + rowStrideB <= BK; offset += rowStrideB)
    cuda::memcpy_async(&Bs[(innerRowB + offset) * BN + innerColB * 4],
                       &B[(innerRowB + offset) * N + innerColB * 4], cuda::aligned_size_t<16>(16),
                       barrier);
}
} // namespace db

template <const int BM, const int BN, const int BK, const int NUM_THREADS>
__global__ void __launch_bounds__(NUM_THREADS)
    runSgemmDoubleBuffering2(int M, int N, int K, float alpha, float *A, float *B, float beta,
                             float *C) {
  auto block = cooperative_groups::this_thread_block();
  __shared__ cuda::barrier<cuda::thread_scope::thread_scope_block> frontBarrier;
  __shared__ cuda::barrier<cuda::thread_scope::thread_scope_block> backBarrier;
  auto frontBarrierPtr = &frontBarrier;
  auto backBarrierPtr = &backBarrier;
  if (block.thread_rank() == 0) {
    init(&frontBarrier, block.size());
    init(&backBarrier, block.size());
  }
  __syncthreads();
  // two buffers of each tile
  __shared__ float As[2 * BM * BK];
  __shared__ float Bs[2 * BK * BN];
  const uint innerRowA = threadIdx.x / (BK / 4);
  const uint innerColA = threadIdx.x % (BK / 4);
  constexpr uint rowStrideA = (NUM_THREADS * 4) / BK;
  const uint innerRowB = threadIdx.x / (BN / 4);
  const uint innerColB = threadIdx.x % (BN / 4);
  constexpr uint rowStrideB = NUM_THREADS / (BN / 4);
  int As_offset = 0, Bs_offset = 0;
  db::loadFromGmem<BM, BN, BK, rowStrideA, rowStrideB>(N, K, A, B, As, Bs, innerRowA, innerColA,
                                                       innerRowB, innerColB, (*frontBarrierPtr));
  float acc = 0;
  for (uint bkIdx = 0; bkIdx < K - BK; bkIdx += BK) {
    db::loadFromGmem<BM, BN, BK, rowStrideA, rowStrideB>(
        N, K, A + BK, B + BK * N, As + (1 - As_offset) * BM * BK, Bs + (1 - Bs_offset) * BK * BN,
        innerRowA, innerColA, innerRowB, innerColB, (*backBarrierPtr));
    (*frontBarrierPtr).arrive_and_wait();
    acc += As[As_offset * BM * BK + threadIdx.x % (BM * BK)] *
           Bs[Bs_offset * BK * BN + threadIdx.x % (BK * BN)];
    A += BK;
    B += BK * N;
    As_offset = 1 - As_offset;
    Bs_offset = 1 - Bs_offset;
    auto tmp = frontBarrierPtr;
    frontBarrierPtr = backBarrierPtr;
    backBarrierPtr = tmp;
    __syncthreads();
  }
  (*frontBarrierPtr).arrive_and_wait();
  C[threadIdx.x] = alpha * acc + beta * C[threadIdx.x];
}
