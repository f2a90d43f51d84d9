// Host-side entry points of the example's kernels.
#pragma once

void launch_block_sum(const float *in, float *out, int n);
void launch_transpose(const float *in, float *out, int rows, int cols);
void launch_stencil(const float *in, float *out, int n);
