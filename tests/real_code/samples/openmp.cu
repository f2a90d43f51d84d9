// One host thread per GPU with OpenMP, in the style of the cuda-samples' cudaOpenMP.
#include <omp.h>
#include <stdio.h>

__global__ void kernelAddConstant(int *g_a, const int b) {
  __shared__ int staged[128];
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  staged[threadIdx.x % 128] = g_a[idx];
  __syncthreads();
  g_a[idx] = staged[(threadIdx.x + 1) % 128] + b;
}

int main(int argc, char *argv[]) {
  int num_gpus = 1;
  omp_set_num_threads(num_gpus);
#pragma omp parallel
  {
    unsigned int cpu_thread_id = omp_get_thread_num();
    unsigned int num_cpu_threads = omp_get_num_threads();
    int *d_a = 0;
    kernelAddConstant<<<4, 128>>>(d_a, 3);
    printf("thread %u of %u\n", cpu_thread_id, num_cpu_threads);
  }
  return 0;
}
