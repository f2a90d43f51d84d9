// 2^62 bytes: more than Clang lets an array be (an error, never a figure).
__global__ void absurd(char *o) {
  __shared__ char x[1ull << 62];
  x[threadIdx.x] = o[0];
  __syncthreads();
  o[1] = x[threadIdx.x + 1];
}
