/* Typical values of the holes of the C kernel files
 * (src/codegen/kernels/NAME.h; the generator defines them before each
 * file), so that every kernel file compiles on its own:
 * cc -fsyntax-only -include tests/kernels/prelude.h FILE.  Valid C11 and
 * CUDA C++ (prelude.cuh includes it). */
#ifndef SDK_TEST_KERNEL_PRELUDE_H
#define SDK_TEST_KERNEL_PRELUDE_H

#ifndef __CUDACC_RTC__
#include <math.h>
#include <stdlib.h>
#endif

/* common.c: the precision and the index type, then the RNG header */
typedef double real;
typedef long long sdk_i64;
#include "../../src/rng/philox.h"
#define SDK_NV 2
#define SDK_NN 1
#define SDK_NSV 3

/* Kernel hooks (codegen/emit.h, sdk_em_kernel_hooks): the generator writes
 * the model's code in place of each line SDK_HOOK(NAME, v...);.  On its
 * own the file calls nothing that uses v..., the values the hook's code
 * reads (so that no variable is unused). */
#ifdef __cplusplus
template <class... T> static __device__ inline void sdk_hook_(int, const T &...) {}
#else
static inline void sdk_hook_(int n, ...) {
  (void)n;
}
#endif
#define SDK_HOOK(name, ...) sdk_hook_(0, ##__VA_ARGS__)
/* A file that is a block of generated code (e.g. sys_chunk.cuh) is, on its
 * own, the body of a function of the values it reads. */
#define SDK_KERNEL_ALONE 1

/* systems of particles (codegen/sys_cuda.c, sys_cpu.c): sums per system,
 * the order parameter's sums (-1: none), a pair model */
#define SDK_NRED 3
#ifndef SDK_OCOS
#define SDK_OCOS 1
#endif
#ifndef SDK_OSIN
#define SDK_OSIN 2
#endif
#ifndef SDK_PAIRS
#define SDK_PAIRS 0
#endif
#ifndef SDK_CHUNK_PART
#define SDK_CHUNK_PART 1
#endif
/* CPU (codegen/cpu_paths.c, sys_cpu.c) */
#define SDK_BLK 64
#define SDK_NMEAN 1
#define SDK_NPAIR 1
#define SDK_NPART 1
#define SDK_JB 256
#define SDK_NDRAW 1
#define SDK_NOISE_VPB 4
#ifndef __cplusplus
int sdk_threads(int n);
#endif

#endif
