#line 2 "kernels/init.h"
/* sdk_init of a CPU module (cpu_paths.c): the paths in an OpenMP loop,
 * independent paths and systems of particles alike.  Hook (codegen/common.c):
 * path (the path's parameters, initial values and state rows). */

/* the threads of a call: nthreads, or OpenMP's default when 0 */
static int sdk_threads(int n) {
  return n > 0 ? n : omp_get_max_threads();
}

void sdk_init(real *restrict st, sdk_i64 npad, const real *restrict sv, sdk_i64 ppg, sdk_i64 ngrid,
              sdk_i64 path0, sdk_u64 sdk_seed, int nthreads) {
#pragma omp parallel for schedule(static) num_threads(sdk_threads(nthreads))
  for (sdk_i64 p = 0; p < npad; p++) {
    const sdk_u64 sdk_gpath = (sdk_u64)(path0 + p);
    sdk_i64 g = (path0 + p) / ppg;
    if (g >= ngrid) g = ngrid - 1;
    (void)sv;
    (void)g;
    SDK_HOOK(path, st, npad, p, sv, g, sdk_gpath, sdk_seed);
  }
}
