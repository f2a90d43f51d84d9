// A negative extent: Clang's error.
__global__ void negative(float *o) {
  __shared__ float x[-1];
  x[threadIdx.x] = o[0];
}
