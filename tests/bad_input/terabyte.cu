// 1 TiB: a valid array, far above every limit.
__global__ void tera(char *o) {
  __shared__ char x[1ull << 40];
  x[threadIdx.x] = o[0];
  __syncthreads();
  o[1] = x[threadIdx.x + 1];
}
