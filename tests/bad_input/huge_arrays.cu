// Nine arrays as large as Clang allows (2^61 - 1 bytes each): more than 2^64 bytes in all.
__global__ void huge(char *o) {
  __shared__ char a0[(1ull << 61) - 1];
  __shared__ char a1[(1ull << 61) - 1];
  __shared__ char a2[(1ull << 61) - 1];
  __shared__ char a3[(1ull << 61) - 1];
  __shared__ char a4[(1ull << 61) - 1];
  __shared__ char a5[(1ull << 61) - 1];
  __shared__ char a6[(1ull << 61) - 1];
  __shared__ char a7[(1ull << 61) - 1];
  __shared__ char a8[(1ull << 61) - 1];
  a0[threadIdx.x] = o[0];
  a1[threadIdx.x] = o[1];
  a2[threadIdx.x] = o[2];
  a3[threadIdx.x] = o[3];
  a4[threadIdx.x] = o[4];
  a5[threadIdx.x] = o[5];
  a6[threadIdx.x] = o[6];
  a7[threadIdx.x] = o[7];
  a8[threadIdx.x] = o[8];
  __syncthreads();
  o[threadIdx.x] = a0[threadIdx.x + 1] + a1[threadIdx.x + 1] + a2[threadIdx.x + 1] + a3[threadIdx.x + 1] + a4[threadIdx.x + 1] + a5[threadIdx.x + 1] + a6[threadIdx.x + 1] + a7[threadIdx.x + 1] + a8[threadIdx.x + 1];
}
