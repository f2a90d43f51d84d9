// A variable of an incomplete type: Clang's error.
struct Opaque;
__global__ void incomplete(float *o) {
  __shared__ Opaque x;
  o[0] = 1;
}
