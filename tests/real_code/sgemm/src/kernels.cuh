#pragma once

#include "kernels/3_kernel_shared_mem_blocking.cuh"
#include "kernels/6_kernel_vectorize.cuh"
#include "kernels/7_kernel_resolve_bank_conflicts.cuh"
#include "kernels/12_kernel_double_buffering.cuh"
