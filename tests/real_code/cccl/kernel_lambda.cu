// A kernel that runs a device lambda, in the style of CCCL's examples/ccclrt: the example
// refuses to compile unless nvcc was given --extended-lambda, which nvcc says with
// __CUDACC_EXTENDED_LAMBDA__.
#include <cuda/std/span>
#include <cuda_runtime.h>

#if !defined(__CUDACC_EXTENDED_LAMBDA__)
#  error "This example requires extended lambda support."
#endif

template <class Fn>
__global__ void for_each_tile(int n, Fn fn) {
  __shared__ int counts[64];
  counts[threadIdx.x % 64] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&counts[i % 64], fn(i));
  __syncthreads();
}

void run(cuda::std::span<float> data) {
  float *p = data.data();
  const int n = static_cast<int>(data.size());
  for_each_tile<<<4, 256>>>(n, [p] __device__(int i) { return p[i] > 0 ? 1 : 0; });
}
