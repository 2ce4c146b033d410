#line 2 "kernels/advance.h"
/* sdk_advance of independent paths on the CPU (cpu_paths.c): an OpenMP loop
 * over blocks of SDK_BLK paths, each block integrating steps [step0, step0 +
 * nsteps) with its state in small arrays, the noise of SDK_SUB steps drawn
 * together and the step vectorised over the block (#pragma omp simd).  Hooks
 * (codegen/cpu_paths.c): load (the block's rows of the state in), steps (the
 * sub-chunk's noise, then its steps), store (the block's rows out). */
void sdk_advance(real *restrict st, sdk_i64 npad, const real *restrict sv, sdk_i64 ppg,
                 sdk_i64 ngrid, sdk_i64 path0, sdk_i64 step0, sdk_i64 nsteps, sdk_u64 sdk_seed,
                 int nthreads) {
  const sdk_i64 nblk = npad / SDK_BLK;
#pragma omp parallel for schedule(static) num_threads(sdk_threads(nthreads))
  for (sdk_i64 blk = 0; blk < nblk; blk++) {
    real xs[SDK_NV][SDK_BLK];
    real spv[SDK_NSV][SDK_BLK];
    real zb[SDK_ZROWS][SDK_BLK];
    const sdk_i64 p0 = blk * SDK_BLK;
    SDK_HOOK(load, st, npad, p0, xs);
    /* the block's scanned values */
    for (int i = 0; i < SDK_BLK; i++) {
      sdk_i64 g = (path0 + p0 + i) / ppg;
      if (g >= ngrid) g = ngrid - 1;
      for (int j = 0; j < SDK_NSV; j++)
        spv[j][i] = sv ? sv[g * SDK_NSV + j] : 0;
    }
    for (sdk_i64 s = 0; s < nsteps; s += SDK_SUB) {
      const sdk_i64 ns = nsteps - s < SDK_SUB ? nsteps - s : SDK_SUB;
      SDK_HOOK(steps, st, npad, path0, p0, step0, s, ns, sdk_seed, xs, spv, zb);
    }
    SDK_HOOK(store, st, npad, p0, xs);
  }
}
