#line 2 "kernels/observe_units.cuh"
/* sdk_observe_units (observe_paths.c): the reduction of the model's
 * [observe] expressions fused with their evaluation, a block per fold unit
 * as sdk_red_units (reduce.cuh, whose device functions it calls): every
 * path's expressions k0 .. k0 + SDK_OBS_GROUP - 1 (those there are),
 * evaluated by the generated sdk_obs_value_ where they are reduced and never
 * stored, into out[(j * SDK_NOBS + k) * 3 + {n, mean, m2}] and
 * nf[j * SDK_NOBS + k] for unit j; with nfs, the paths of the unit whose
 * variable v is NaN/Inf, nfs[j * SDK_NV + v] (the check between samples, in
 * the same pass).  The values are those sdk_observe stores: (real)EXPR.
 * Holes: real, sdk_i64, SDK_NV, SDK_NOBS (the expressions evaluated),
 * SDK_OBS_GROUP (codegen/abi.h: expressions per launch), SDK_RED_WARPS,
 * SDK_RED_FOLD, SDK_RED_CHUNK (cuda_reduce.c). */
extern "C" __global__ void __launch_bounds__(32 * SDK_RED_WARPS, 2)
    sdk_observe_units(const real *__restrict__ st, sdk_i64 npad, const real *__restrict__ sv,
                      sdk_i64 ppg, sdk_i64 path0, sdk_i64 step, sdk_i64 nch, sdk_i64 chunk0,
                      const sdk_i64 *__restrict__ units, int k0, double *__restrict__ out,
                      int *__restrict__ nf, int *__restrict__ nfs) {
  __shared__ double sr[SDK_OBS_GROUP][SDK_RED_FOLD][3], sy[SDK_OBS_GROUP][SDK_RED_FOLD][2];
  __shared__ int sb[SDK_OBS_GROUP][SDK_RED_FOLD], sbs[SDK_NV];
  const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
  const sdk_i64 j = blockIdx.x, first = chunk0 + units[2 * j];
  const int nc = (int)units[2 * j + 1];
  const int nk = SDK_NOBS - k0 < SDK_OBS_GROUP ? SDK_NOBS - k0 : SDK_OBS_GROUP;
  for (int v = threadIdx.x; v < SDK_NV; v += blockDim.x)
    sbs[v] = 0;
  __syncthreads();
  for (int c = wid; c < nc; c += nw) {
    const sdk_i64 chunk = first + c, g = chunk / nch, cc = chunk - g * nch;
    const sdk_i64 i0 = cc * SDK_RED_CHUNK + lane, p0 = g * ppg - path0 + i0;
    /* (the loads of a row first, then the votes: reduce.cuh's
     * sdk_chunk_load_ says why) */
    for (int v = 0; nfs && v < SDK_NV; v++) {
      int bad = 0;
      real y[8];
      for (int q = 0; q < 8; q++)
        y[q] = i0 + 32 * q < ppg ? st[(sdk_i64)v * npad + p0 + 32 * q] : (real)0;
      for (int q = 0; q < 8; q++) {
        const int in = i0 + 32 * q < ppg;
        const double x = in ? (double)y[q] : 0.0;
        bad += __popc(__ballot_sync(0xffffffffu, in && !sdk_finite_(x)));
      }
      if (lane == 0 && bad) atomicAdd(&sbs[v], bad);
    }
    for (int kk = 0; kk < nk; kk++) {
      double x[8];
      int ok[8], bad = 0;
      for (int q = 0; q < 8; q++)
        x[q] = i0 + 32 * q < ppg ? sdk_obs_value_(k0 + kk, st, npad, sv, g, step, p0 + 32 * q)
                                 : 0.0;
      for (int q = 0; q < 8; q++) {
        const int in = i0 + 32 * q < ppg;
        ok[q] = in && sdk_finite_(x[q]);
        bad += __popc(__ballot_sync(0xffffffffu, in && !ok[q]));
      }
      double n, m, q2;
      int rb;
      sdk_chunk_tree_(x, ok, bad, lane, n, m, q2, rb);
      if (lane == 0) {
        sr[kk][c][0] = n;
        sr[kk][c][1] = m;
        sr[kk][c][2] = q2;
        sb[kk][c] = rb;
      }
    }
  }
  __syncthreads();
  for (int kk = wid; kk < nk; kk += nw)
    sdk_unit_fold_(sr[kk], sy[kk], sb[kk], nc, lane, out + (j * SDK_NOBS + k0 + kk) * 3,
                   nf ? nf + j * SDK_NOBS + k0 + kk : NULL);
  for (int v = threadIdx.x; nfs && v < SDK_NV; v += blockDim.x)
    nfs[j * SDK_NV + v] = sbs[v];
}
