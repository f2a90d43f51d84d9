// Image filters in the style of the cuda-samples' boxFilter and SobelFilter: tiles of a
// texture object in shared memory, results written through a surface object.
#include <cuda_runtime.h>

#define TILE_W 16
#define TILE_H 16
#define R 2
#define BLOCK_W (TILE_W + 2 * R)
#define BLOCK_H (TILE_H + 2 * R)

__global__ void SobelShared(cudaSurfaceObject_t out, short w, short h, float fScale,
                            cudaTextureObject_t tex) {
  __shared__ unsigned char LocalBlock[BLOCK_H][BLOCK_W];
  const int u = blockIdx.x * TILE_W + threadIdx.x - R;
  const int v = blockIdx.y * TILE_H + threadIdx.y - R;
  LocalBlock[threadIdx.y][threadIdx.x] = tex2D<unsigned char>(tex, (float)u, (float)v);
  __syncthreads();
  if (threadIdx.x >= R && threadIdx.x < BLOCK_W - R && threadIdx.y >= R &&
      threadIdx.y < BLOCK_H - R) {
    short Horz = LocalBlock[threadIdx.y - 1][threadIdx.x + 1] -
                 LocalBlock[threadIdx.y - 1][threadIdx.x - 1];
    short Vert = LocalBlock[threadIdx.y + 1][threadIdx.x] - LocalBlock[threadIdx.y - 1][threadIdx.x];
    unsigned char Sum = (unsigned char)min(255, max(0, (int)(fScale * (abs(Horz) + abs(Vert)))));
    surf2Dwrite(Sum, out, u, v);
  }
}

__global__ void d_boxfilter_rgba_x(cudaSurfaceObject_t out, cudaTextureObject_t tex, int w, int h,
                                   int r) {
  __shared__ float4 row[256];
  const int y = blockIdx.x * blockDim.x + threadIdx.x;
  row[threadIdx.x] = tex2D<float4>(tex, 0.5f, y + 0.5f);
  __syncthreads();
  float4 t = row[(threadIdx.x + 1) % 256];
  uchar4 c = make_uchar4(t.x, t.y, t.z, t.w);
  surf2Dwrite(c, out, 0, y);
  float4 last = tex1Dfetch<float4>(tex, y);
  (void)last;
}

void sobel(cudaSurfaceObject_t out, cudaTextureObject_t tex, int w, int h) {
  dim3 threads(BLOCK_W, BLOCK_H);
  SobelShared<<<dim3(w / TILE_W, h / TILE_H), threads>>>(out, w, h, 1.0f, tex);
  d_boxfilter_rgba_x<<<h / 256, 256>>>(out, tex, w, h, 4);
}
