// bench: the cost of tilefit's host-side parse (bench/README.md). host_parse_on.cu and
// host_parse_off.cu differ only in the guard of the host code at the end: in _on it names the
// macro itself, so tilefit parses the unit a second time, host-side, to find the launches; in
// _off the same test comes from device_pass.h and the second parse is skipped.
#include "device_pass.h"
#include <cooperative_groups.h>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

namespace cg = cooperative_groups;

template <typename T, int THREADS>
__global__ void block_total(const T *in, T *out, int n) {
  using Reduce = cub::BlockReduce<T, THREADS>;
  __shared__ typename Reduce::TempStorage temp;
  const int i = blockIdx.x * THREADS + threadIdx.x;
  T s = Reduce(temp).Sum(i < n ? in[i] : T(0));
  if (threadIdx.x == 0)
    out[blockIdx.x] = s;
}

template <typename T, int THREADS>
__global__ void block_prefix(const T *in, T *out, int n) {
  using Scan = cub::BlockScan<T, THREADS>;
  __shared__ typename Scan::TempStorage temp;
  extern __shared__ unsigned char staging[];
  cg::thread_block block = cg::this_thread_block();
  const int i = blockIdx.x * THREADS + block.thread_rank();
  T v = i < n ? in[i] : T(0);
  staging[block.thread_rank()] = static_cast<unsigned char>(v);
  block.sync();
  Scan(temp).InclusiveSum(v, v);
  if (i < n)
    out[i] = v + staging[(block.thread_rank() + 1) % THREADS];
}

template __global__ void block_total<float, 256>(const float *, float *, int);
template __global__ void block_total<double, 512>(const double *, double *, int);
template __global__ void block_prefix<float, 128>(const float *, float *, int);
template __global__ void block_prefix<double, 256>(const double *, double *, int);

#if !BENCH_DEVICE_PASS
// Host code the device-side parse does not see: the launches (and their dynamic shared memory).
void run_all(const float *fin, float *fout, const double *din, double *dout, int n) {
  block_total<float, 256><<<(n + 255) / 256, 256>>>(fin, fout, n);
  block_total<double, 512><<<(n + 511) / 512, 512>>>(din, dout, n);
  block_prefix<float, 128><<<(n + 127) / 128, 128, 128>>>(fin, fout, n);
  block_prefix<double, 256><<<(n + 255) / 256, 256, 256>>>(din, dout, n);
}
#endif
