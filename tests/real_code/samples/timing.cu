// GPU timers and system-scope stores in inline PTX, in the style of the cuda-samples'
// cudaGraphsPerfScaling and conjugateGradientMultiDeviceCG.
#include <cuda_runtime.h>

__device__ __forceinline__ unsigned long long __globaltimer() {
  unsigned long long globaltimer;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(globaltimer));
  return globaltimer;
}

struct MultiDeviceBarrier {
  unsigned char *arrived;
  __device__ void store_arrived(unsigned char *arrived, unsigned char val) const {
    unsigned int reg_val = val;
    asm volatile("st.release.sys.global.u8 [%1], %0;" ::"r"(reg_val) "l"(arrived) : "memory");
  }
};

__global__ void delay(long long ticks, unsigned long long *stamps, MultiDeviceBarrier bar) {
  __shared__ unsigned long long start[32];
  start[threadIdx.x % 32] = __globaltimer();
  __syncthreads();
  while (__globaltimer() - start[0] < (unsigned long long)ticks) {
  }
  bar.store_arrived(bar.arrived + blockIdx.x, 1);
  stamps[blockIdx.x * blockDim.x + threadIdx.x] = start[(threadIdx.x + 1) % 32];
}

void run(unsigned long long *stamps, MultiDeviceBarrier bar) { delay<<<8, 32>>>(1000, stamps, bar); }
