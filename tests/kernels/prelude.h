/* The holes of the kernel files of src/codegen/kernels/, with typical
 * values: what the generator defines before it writes a file (common.c's
 * prelude, the drivers' heads), so that each file compiles on its own
 * (tests/kernels/check.sh: cc -fsyntax-only on every kernels/NAME.h;
 * test_kernel_nvrtc: every kernels/NAME.cuh through NVRTC after prelude.cuh,
 * which includes this file).  Valid C11 and CUDA C++.
 *
 * A file that needs a new hole: define it here (or, CUDA only, in
 * prelude.cuh) with a typical value and say which part of the generator
 * defines it; keep the groups in the order the generated source has them. */
#ifndef SDK_TEST_KERNEL_PRELUDE_H
#define SDK_TEST_KERNEL_PRELUDE_H

#ifndef __CUDACC_RTC__
#include <math.h>
#include <stddef.h>
#endif
#if !defined(__CUDACC_RTC__) && !defined(__cplusplus)
#include <omp.h> /* (the CPU backend's sources include it) */
#endif

/* common.c: the precision and the index type, then the RNG header */
typedef double real;
typedef long long sdk_i64;
#include "../../src/rng/philox.h"

/* common.c: the model's sizes, the noise in the kernel's precision */
#define SDK_NV 2  /* variables */
#define SDK_NN 2  /* noise channels */
#define SDK_NSV 3 /* values per grid point (scans) */
#define sdk_gauss4 sdk_gauss4_d
#define sdk_uniform4 sdk_uniform4_d
#define SDK_OPQ(v) (v)

/* abi.h, through the drivers' heads (cuda_paths.c, cuda_reduce.c): sizes of
 * the reductions and of a CUDA block */
#define SDK_TPB 256
#define SDK_RED_CHUNK 256
#define SDK_RED_FOLD 64
#define SDK_RED_WARPS 16

/* cpu_paths.c: a block of paths, its sub-blocks, the rows of noise a step
 * draws */
#define SDK_BLK 64
#define SDK_SUB 16
#define SDK_ZROWS 8

#endif
