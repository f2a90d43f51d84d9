// A heavy translation unit for bench/: CUB block primitives (BlockReduce, BlockScan,
// BlockRadixSort, BlockLoad/BlockStore), cooperative groups and cuda::pipeline, each kernel
// instantiated several times. It is not checked for figures; it only has to parse with Clang 19
// (through tilefit) and compile with nvcc.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cub/block/block_load.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cuda/pipeline>

namespace cg = cooperative_groups;

// Block-wide sum with CUB's BlockReduce, one value per thread.
template <typename T, int THREADS, cub::BlockReduceAlgorithm ALGO>
__global__ void block_sum(const T *in, T *out) {
  using Reduce = cub::BlockReduce<T, THREADS, ALGO>;
  __shared__ typename Reduce::TempStorage temp;
  T v = in[blockIdx.x * THREADS + threadIdx.x];
  T s = Reduce(temp).Sum(v);
  if (threadIdx.x == 0)
    out[blockIdx.x] = s;
}

// Load, exclusive scan and store ITEMS values per thread.
template <typename T, int THREADS, int ITEMS, cub::BlockScanAlgorithm ALGO>
__global__ void block_scan(const T *in, T *out) {
  using Load = cub::BlockLoad<T, THREADS, ITEMS, cub::BLOCK_LOAD_TRANSPOSE>;
  using Scan = cub::BlockScan<T, THREADS, ALGO>;
  using Store = cub::BlockStore<T, THREADS, ITEMS, cub::BLOCK_STORE_TRANSPOSE>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Scan::TempStorage scan;
    typename Store::TempStorage store;
  } temp;
  T items[ITEMS];
  const int offset = blockIdx.x * THREADS * ITEMS;
  Load(temp.load).Load(in + offset, items);
  __syncthreads();
  Scan(temp.scan).ExclusiveSum(items, items);
  __syncthreads();
  Store(temp.store).Store(out + offset, items);
}

// Sort keys (and values) per block with BlockRadixSort.
template <typename Key, typename Value, int THREADS, int ITEMS>
__global__ void block_sort(Key *keys, Value *values) {
  using Sort = cub::BlockRadixSort<Key, THREADS, ITEMS, Value>;
  __shared__ typename Sort::TempStorage temp;
  Key k[ITEMS];
  Value v[ITEMS];
  const int base = blockIdx.x * THREADS * ITEMS + threadIdx.x * ITEMS;
  for (int i = 0; i < ITEMS; ++i) {
    k[i] = keys[base + i];
    v[i] = values[base + i];
  }
  Sort(temp).Sort(k, v);
  for (int i = 0; i < ITEMS; ++i) {
    keys[base + i] = k[i];
    values[base + i] = v[i];
  }
}

// Cooperative groups: tile-wide reductions, partials in shared memory.
template <typename T, int THREADS, int TILE>
__global__ void cg_reduce(const T *in, T *out, int n) {
  __shared__ T partial[THREADS / TILE];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<TILE> tile = cg::tiled_partition<TILE>(block);
  const int i = blockIdx.x * THREADS + block.thread_rank();
  T v = i < n ? in[i] : T(0);
  T s = cg::reduce(tile, v, cg::plus<T>());
  if (tile.thread_rank() == 0)
    partial[tile.meta_group_rank()] = s;
  block.sync();
  if (block.thread_rank() == 0) {
    T total = 0;
    for (int t = 0; t < THREADS / TILE; ++t)
      total += partial[t];
    out[blockIdx.x] = total;
  }
}

// A multi-stage copy pipeline into shared memory with cuda::pipeline and memcpy_async (a
// thread-scope pipeline: Clang rejects a __shared__ pipeline_shared_state, which has a
// constructor).
template <typename T, int THREADS, int STAGES>
__global__ void pipelined_sum(const T *in, T *out, int tiles) {
  __shared__ T ring[STAGES][THREADS];
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  T acc = 0;
  int fetch = 0;
  for (int t = 0; t < tiles; ++t) {
    for (; fetch < tiles && fetch < t + STAGES; ++fetch) {
      pipe.producer_acquire();
      cuda::memcpy_async(&ring[fetch % STAGES][threadIdx.x],
                         in + (blockIdx.x * tiles + fetch) * THREADS + threadIdx.x, sizeof(T), pipe);
      pipe.producer_commit();
    }
    pipe.consumer_wait();
    acc += ring[t % STAGES][threadIdx.x];
    pipe.consumer_release();
  }
  out[blockIdx.x * THREADS + threadIdx.x] = acc;
}

template __global__ void block_sum<float, 128, cub::BLOCK_REDUCE_WARP_REDUCTIONS>(const float *, float *);
template __global__ void block_sum<float, 256, cub::BLOCK_REDUCE_RAKING>(const float *, float *);
template __global__ void block_sum<double, 512, cub::BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY>(const double *, double *);
template __global__ void block_sum<int, 1024, cub::BLOCK_REDUCE_WARP_REDUCTIONS>(const int *, int *);

template __global__ void block_scan<int, 128, 4, cub::BLOCK_SCAN_RAKING>(const int *, int *);
template __global__ void block_scan<float, 256, 8, cub::BLOCK_SCAN_WARP_SCANS>(const float *, float *);
template __global__ void block_scan<double, 256, 4, cub::BLOCK_SCAN_RAKING_MEMOIZE>(const double *, double *);
template __global__ void block_scan<unsigned long long, 512, 2, cub::BLOCK_SCAN_WARP_SCANS>(const unsigned long long *, unsigned long long *);

template __global__ void block_sort<unsigned, int, 128, 4>(unsigned *, int *);
template __global__ void block_sort<float, unsigned, 256, 8>(float *, unsigned *);
template __global__ void block_sort<int, cub::NullType, 256, 4>(int *, cub::NullType *);
template __global__ void block_sort<double, float, 128, 8>(double *, float *);

template __global__ void cg_reduce<float, 256, 32>(const float *, float *, int);
template __global__ void cg_reduce<int, 512, 16>(const int *, int *, int);
template __global__ void cg_reduce<double, 1024, 8>(const double *, double *, int);

template __global__ void pipelined_sum<float, 128, 2>(const float *, float *, int);
template __global__ void pipelined_sum<float, 256, 3>(const float *, float *, int);
template __global__ void pipelined_sum<double, 128, 4>(const double *, double *, int);
