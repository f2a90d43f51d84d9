#pragma once

#include "kernels/3_kernel_shared_mem_blocking.cuh"
#include "kernels/12_kernel_double_buffering.cuh"
