// An instantiation with a negative extent: Clang's error.
template <int N> __global__ void sized(float *o) {
  __shared__ float x[N];
  x[threadIdx.x] = o[0];
}
template __global__ void sized<-4>(float *);
