// Extents that depend on template parameters: only instantiations are kernels.
template <int N> __global__ void never(float *o) {
  __shared__ float x[N];
  x[threadIdx.x % N] = o[0];
}

template <int N> __global__ void sized(float *o) {
  __shared__ float x[N];
  x[threadIdx.x % N] = o[0];
  __syncthreads();
  o[1] = x[(threadIdx.x + 1) % N];
}
template __global__ void sized<16>(float *);
