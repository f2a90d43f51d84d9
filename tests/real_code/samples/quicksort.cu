// Quicksort with dynamic parallelism, in the style of the cuda-samples' cdpSimpleQuicksort:
// kernels launch kernels (built with -rdc=true).
#include <cuda_runtime.h>
#include <stdio.h>

#define MAX_DEPTH 16
#define INSERTION_SORT 32

__device__ void selection_sort(unsigned int *data, int left, int right) {
  __shared__ unsigned int window[INSERTION_SORT];
  window[threadIdx.x % INSERTION_SORT] = data[left + threadIdx.x % (right - left + 1)];
  __syncthreads();
  data[left] = window[0];
}

__global__ void cdp_simple_quicksort(unsigned int *data, int left, int right, int depth) {
  __shared__ int bounds[2];
  if (depth >= MAX_DEPTH || right - left <= INSERTION_SORT) {
    selection_sort(data, left, right);
    return;
  }
  unsigned int *lptr = data + left, *rptr = data + right;
  unsigned int pivot = data[(left + right) / 2];
  while (lptr <= rptr) {
    if (*lptr < pivot)
      lptr++;
    else if (*rptr > pivot)
      rptr--;
    else {
      unsigned int t = *lptr;
      *lptr++ = *rptr;
      *rptr-- = t;
    }
  }
  bounds[0] = rptr - data;
  bounds[1] = lptr - data;
  if (left < bounds[0]) {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cdp_simple_quicksort<<<1, 1, 0, s>>>(data, left, bounds[0], depth + 1);
    cudaStreamDestroy(s);
  }
  if (bounds[1] < right) {
    cudaStream_t s1;
    cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
    cdp_simple_quicksort<<<1, 1, 0, s1>>>(data, bounds[1], right, depth + 1);
    cudaStreamDestroy(s1);
  }
}

void run_qsort(unsigned int *data, unsigned int nitems) {
  cdp_simple_quicksort<<<1, 1>>>(data, 0, nitems - 1, 0);
  printf("launched\n");
}
