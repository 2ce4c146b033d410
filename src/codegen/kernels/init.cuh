#line 2 "kernels/init.cuh"
/* sdk_init of a CUDA module (cuda_paths.c): one thread per path, independent
 * paths and systems of particles alike.  Hook (codegen/common.c): path (the
 * path's parameters, initial values and state rows). */
extern "C" __global__ void __launch_bounds__(SDK_TPB)
    sdk_init(real *__restrict__ st, sdk_i64 npad, const real *__restrict__ sv, sdk_i64 ppg,
             sdk_i64 ngrid, sdk_i64 path0, sdk_u64 sdk_seed) {
  const sdk_i64 p = (sdk_i64)blockIdx.x * SDK_TPB + threadIdx.x;
  if (p >= npad) return;
  const sdk_u64 sdk_gpath = (sdk_u64)(path0 + p);
  sdk_i64 g = (path0 + p) / ppg;
  if (g >= ngrid) g = ngrid - 1;
  (void)sv;
  (void)g;
  (void)sdk_gpath;
  (void)sdk_seed;
  SDK_HOOK(path, st, npad, p, sv, g, sdk_gpath, sdk_seed);
}
