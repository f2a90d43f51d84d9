// Host-side entry points of the example's kernels.
#pragma once

struct float4;

void launch_block_sum(const float *in, float *out, int n);
void launch_transpose(const float *in, float *out, int rows, int cols);
void launch_stencil(const float *in, float *out, int n);
void launch_gemm(const float *A, const float *B, float *C, int M, int N, int K);
void launch_histogram(const unsigned char *in, unsigned *out, int n);
void launch_window_sum(const float4 *in, float *out, int n);
