#line 2 "kernels/advance_live.cuh"
/* sdk_advance of independent paths on CUDA (cuda_paths.c), models with
 * [boundaries]: as advance.cuh, launched by the backend over the paths still
 * alive (sdk_live, listed by sdk_live_list) or, sdk_live NULL, over all.
 * Hooks (codegen/cuda_paths.c): on (the end of sdk_on: whether the path's
 * status row, or with --dt-check its coarse copy's, is 0), path as in
 * advance.cuh (path.cuh; its steps read the warp mask sdk_wm: an absorbed
 * warp jumps to sdk_frozen). */
extern "C" __global__ void __launch_bounds__(SDK_TPB)
    sdk_advance(real *__restrict__ st, sdk_i64 npad, const real *__restrict__ sv, sdk_i64 ppg,
                sdk_i64 ngrid, sdk_i64 path0, sdk_i64 step0, sdk_i64 nsteps, sdk_u64 sdk_seed,
                const unsigned *__restrict__ sdk_live, sdk_i64 sdk_nlive) {
  sdk_i64 base = (sdk_i64)blockIdx.x * SDK_TPB + threadIdx.x;
  if (sdk_live) base = base < sdk_nlive ? (sdk_i64)sdk_live[base] : npad;
  /* the warp's lanes with a live path: the vote at each group's end names
   * them (a lane that has returned cannot vote) */
  const int sdk_on = base < npad && nsteps > 0 && /* and alive (the hook): */
                     SDK_HOOK(on, st, npad, base);
  const unsigned sdk_wm = __ballot_sync(0xffffffffu, sdk_on);
  if (!sdk_on) return;
  (void)sv;
  (void)sdk_seed;
  (void)sdk_wm;
  SDK_HOOK(path, st, npad, sv, ppg, ngrid, path0, step0, nsteps, sdk_seed, base, sdk_wm);
}
