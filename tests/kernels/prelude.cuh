/* The holes of the CUDA kernel files (src/codegen/kernels/NAME.cuh): those of
 * prelude.h, which is valid CUDA too, and the ones only CUDA text has.  test_kernel_nvrtc writes
 * this file (its includes expanded) before each kernels/NAME.cuh and compiles the two through
 * NVRTC; check.sh includes it after host_cuda.h to read the files as host C++. */
#ifndef SDK_TEST_KERNEL_PRELUDE_CUH
#define SDK_TEST_KERNEL_PRELUDE_CUH

#include "prelude.h"

/* cuda_paths.c: the time table of periodic drives */
#define SDK_TT_SLOTS 2
#define SDK_TT_PHASES 100

/* systems of particles (codegen/sys_cuda.c) */
#define SDK_STPB 256
#define SDK_SINGLE 0
#define SDK_MINB 3
#define SDK_MINB_RUN 2
#define SDK_QI 1
#define SDK_CH 1024
/* sys_step.cuh: which kernel (1: sdk_sys_sums; 1: sdk_sys_step_half) */
#ifndef SDK_SYS_SUMS
#define SDK_SYS_SUMS 0
#endif
#ifndef SDK_STEP_HALF
#define SDK_STEP_HALF 0
#endif
/* pair models' half kernels (sys_cuda_pairs.c) */
#define SDK_HALF_WPB 4
#define SDK_HALF_ROWS 8
#define SDK_HALF_COLS 4
/* the [observe] expressions' reduction (observe_paths.c; codegen/abi.h) */
#define SDK_NOBS 3
#define SDK_OBS_GROUP 8
/* What the kernel files call of each other (sys_sums.cuh's helpers, the
 * group function of sys_group.cuh), the generator writing them before: here
 * stand-ins, templates, which a file's own definitions outrank. */
template <class... T> static __device__ unsigned sdk_atom_inc_acqrel(T...) {
  return 0u;
}
template <class... T> static __device__ void sdk_sys_block_sum(T...) {}
template <class... T> static __device__ void sdk_sys_total(T...) {}
template <class... T> static __device__ void sdk_grid_sync(T...) {}
template <class... T> static __device__ void sdk_sys_group(T...) {}
/* reduce.cuh's, and the generated value of an expression (observe_paths.c),
 * which observe_units.cuh calls */
template <class... T> static __device__ int sdk_finite_(T...) {
  return 1;
}
template <class... T> static __device__ void sdk_chunk_tree_(T &...) {}
template <class... T> static __device__ void sdk_unit_fold_(T...) {}
template <class... T> static __device__ double sdk_obs_value_(T...) {
  return 0.0;
}

#endif
