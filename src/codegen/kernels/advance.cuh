#line 2 "kernels/advance.cuh"
/* sdk_advance of independent paths on CUDA (cuda_paths.c), models without
 * [boundaries]: steps [step0, step0 + nsteps) of one path per thread, its
 * state, parameters and noise in registers for all the steps of a launch
 * (Januszewski & Kostur 2010, Alg. 1); only the final state goes back to
 * global memory.  Hook (codegen/cuda_paths.c): path (the file path.cuh,
 * which advance_live.cuh shares, with its hooks values and steps). */
extern "C" __global__ void __launch_bounds__(SDK_TPB)
    sdk_advance(real *__restrict__ st, sdk_i64 npad, const real *__restrict__ sv, sdk_i64 ppg,
                sdk_i64 ngrid, sdk_i64 path0, sdk_i64 step0, sdk_i64 nsteps, sdk_u64 sdk_seed) {
  const sdk_i64 base = (sdk_i64)blockIdx.x * SDK_TPB + threadIdx.x;
  if (base >= npad || nsteps <= 0) return;
  (void)sv;
  (void)sdk_seed;
  SDK_HOOK(path, st, npad, sv, ppg, ngrid, path0, step0, nsteps, sdk_seed, base);
}
