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
/* events.c: jump_draws.h comes after event_draws.h, whose helpers it calls */
#if defined(SDK_KERNEL_FILE_jump_draws_h) || defined(SDK_KERNEL_FILE_reset_draws_h)
#include "../../src/codegen/kernels/event_draws.h"
#endif
/* adaptive.c (--adaptive): the Brownian tree, the step controller's levels
 * and thresholds (its rows, SDK_ADAPT_ROW, are the driver's) */
#include "../../src/rng/btree.h"
#define SDK_ADAPT_LEV0 0
#define SDK_ADAPT_LEVMAX 24
#define SDK_ADAPT_GROW 0.2025
#define SDK_ADAPT_SHRINK1 1.8
#define SDK_ADAPT_SHRINK2 3.6
#define SDK_ADAPT_SHRINK3 7.2
#define SDK_ADAPT_QCROSS 2.302585092994046
#define SDK_ADAPT_LIVE 1
#define SDK_RS_BINS 44 /* (resets.c, before reset_draws.h) */
/* acf.c (--observe acf in the kernel): the precision's arithmetic, the target */
#define SDK_ACF_SINGLE 0
#define SDK_ACF_CUDA 0
#ifndef SDK_KERNEL_FILE_opaque_h /* (the CPU's definition: kernels/opaque.h) */
#define SDK_OPQ(v) (v)
#endif
/* psd.c (--observe psd in the kernel): the segment, window, clock, target;
 * psd_seg.h comes after psd_fft.h, whose functions it calls */
#define SDK_PSD_CUDA 0
#define SDK_PSD_M 16
#define SDK_PSD_HANN 1
#define SDK_PSD_FIRST 0LL
#define SDK_PSD_EVERY 1LL
#if defined(SDK_KERNEL_FILE_psd_seg_h) || defined(SDK_KERNEL_FILE_psd_fft_h) ||                    \
    defined(SDK_KERNEL_FILE_acf_add_h) /* (the CPU's sdk_opqd_, emitted before them) */
#include "../../src/codegen/kernels/opaque_d.h"
#endif
#ifdef SDK_KERNEL_FILE_psd_seg_h
#include "../../src/codegen/kernels/psd_fft.h"
static const double sdk_psd_ctab[SDK_PSD_M / 4 + 1]; /* (psd.c's table) */
#endif

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
/* ... and the threads of a call (defined by kernels/init.h, the first CPU
 * file that uses it; check.sh defines SDK_KERNEL_FILE_<NAME> for each file) */
#if !defined(__cplusplus) && !defined(SDK_KERNEL_FILE_init_h)
int sdk_threads(int n);
#endif

/* Kernel hooks (codegen/emit.h, sdk_em_kernel_hooks): the generator writes
 * the model's code in place of each line SDK_HOOK(NAME, v...);.  On its
 * own the file calls nothing that uses v..., the values the hook's code
 * reads (so that no variable is unused); its value, 1, stands for a hook
 * that ends an expression (`... &&` on the line before). */
#ifdef __cplusplus
template <class... T> static __device__ inline int sdk_hook_(int, const T &...) {
  return 1;
}
#else
static inline int sdk_hook_(int n, ...) {
  (void)n;
  return 1;
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
/* sys_cpu.c */
#define SDK_NMEAN 1
#define SDK_NPAIR 1
#define SDK_NPART 1
#define SDK_JB 256
#define SDK_NDRAW 1
#define SDK_NOISE_VPB 4

#endif
