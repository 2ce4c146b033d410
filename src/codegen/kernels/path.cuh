#line 2 "kernels/path.cuh"
/* The steps of one independent path on CUDA, the part advance.cuh and
 * advance_live.cuh share (written at their hook path: cuda_paths.c): the
 * path's index, its Philox stream (rng/philox.h: the counter holds the
 * global path index, so a path's numbers do not depend on the launch that
 * runs it) and its grid point, then the scanned values and the steps.  One path per
 * thread: two (p and p + SDK_TPB) measured no faster on the H100 (6.24e11
 * against 6.27e11 steps/s, docs/BENCHMARKS.md), the kernel being bound by
 * issue and the MUFU pipe, not by latency.
 * Hooks (codegen/cuda_paths.c): values (the scanned parameters, the step,
 * the state rows in registers), steps (the passes of the steps, the state
 * rows back; with [boundaries] they also read advance_live.cuh's warp mask
 * sdk_wm).  The file is a block of sdk_advance; on its own
 * (tests/kernels/prelude.h defines SDK_KERNEL_ALONE) the body of a function
 * of the kernel's values it reads. */
#ifdef SDK_KERNEL_ALONE
static __device__ void sdk_path_alone_(real *__restrict__ st, sdk_i64 npad,
                                       const real *__restrict__ sv, sdk_i64 ppg, sdk_i64 ngrid,
                                       sdk_i64 path0, sdk_i64 step0, sdk_i64 nsteps,
                                       sdk_u64 sdk_seed, sdk_i64 base) {
#endif
  const sdk_i64 p0 = base;
  const sdk_u64 gp0 = (sdk_u64)(path0 + p0);
  (void)gp0;
  sdk_i64 g0 = (path0 + p0) / ppg;
  if (g0 >= ngrid) g0 = ngrid - 1;
  (void)g0;
  SDK_HOOK(values, sv, g0, st, npad, p0);
  sdk_i64 n = step0;
  const sdk_i64 nend = step0 + nsteps;
  SDK_HOOK(steps, st, npad, p0, n, nend, step0, sdk_seed, gp0);
#ifdef SDK_KERNEL_ALONE
}
#endif
