#line 2 "kernels/advance.cuh"
/* sdk_advance of independent paths on CUDA (cuda_paths.c), models without
 * [boundaries]: steps [step0, step0 + nsteps) of one path per thread, its
 * state, parameters and noise in registers for all the steps of a launch
 * (Januszewski & Kostur 2010, Alg. 1); only the final state goes back to
 * global memory.  Hooks (codegen/cuda_paths.c): values (the scanned
 * parameters, the step, the state rows in registers), steps (the passes of
 * the steps, the state rows back). */
extern "C" __global__ void __launch_bounds__(SDK_TPB)
    sdk_advance(real *__restrict__ st, sdk_i64 npad, const real *__restrict__ sv, sdk_i64 ppg,
                sdk_i64 ngrid, sdk_i64 path0, sdk_i64 step0, sdk_i64 nsteps, sdk_u64 sdk_seed) {
  const sdk_i64 base = (sdk_i64)blockIdx.x * (SDK_TPB * SDK_ILP) + threadIdx.x;
  if (base >= npad || nsteps <= 0) return;
  (void)sv;
  (void)sdk_seed;
  /* the path, its stream (rng/philox.h) and its grid point */
  const sdk_i64 p0 = base + 0 * SDK_TPB;
  const sdk_u64 gp0 = (sdk_u64)(path0 + p0);
  (void)gp0;
  sdk_i64 g0 = (path0 + p0) / ppg;
  if (g0 >= ngrid) g0 = ngrid - 1;
  (void)g0;
  SDK_HOOK(values, sv, g0, st, npad, p0);
  sdk_i64 n = step0;
  const sdk_i64 nend = step0 + nsteps;
  SDK_HOOK(steps, st, npad, p0, n, nend, step0, sdk_seed, gp0);
}
