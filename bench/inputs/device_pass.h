// For bench/inputs/host_parse_off.cu: the same test as `#ifndef __CUDA_ARCH__`, spelled
// through a macro so that the guard's directive does not name __CUDA_ARCH__ (tilefit then skips
// its host-side parse).
#pragma once
#ifdef __CUDA_ARCH__
#define BENCH_DEVICE_PASS 1
#else
#define BENCH_DEVICE_PASS 0
#endif
