// A zero-length array takes no memory; the int beside it takes 4 bytes.
__global__ void zero(float *o) {
  __shared__ float x[0];
  __shared__ int n;
  n = 1;
  x[threadIdx.x] = o[0];
  __syncthreads();
  o[1] = x[threadIdx.x + 1] + n;
}
