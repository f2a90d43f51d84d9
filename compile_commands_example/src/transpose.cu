// Tiled transpose with the tile padded by one column against bank conflicts.
#include "kernels.h"

template <typename T, int TILE, int ROWS_PER_THREAD>
__global__ void transpose(const T *in, T *out, int rows, int cols) {
  __shared__ T tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += TILE / ROWS_PER_THREAD)
    if (x < cols && y + j < rows)
      tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += TILE / ROWS_PER_THREAD)
    if (x < rows && y + j < cols)
      out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

template __global__ void transpose<float, 32, 4>(const float *, float *, int, int);
template __global__ void transpose<double, 32, 4>(const double *, double *, int, int);

void launch_transpose(const float *in, float *out, int rows, int cols) {
  dim3 block(32, 8), grid((cols + 31) / 32, (rows + 31) / 32);
  transpose<float, 32, 4><<<grid, block>>>(in, out, rows, cols);
}
