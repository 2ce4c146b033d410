/* CUDA driver of the generator: kernels for NVRTC (no system headers).
 *
 * One thread per path (Januszewski & Kostur 2010, Alg. 1): the path's state,
 * parameters and random-number cache stay in registers for all the steps of
 * a launch; only the final state goes back to global memory.
 *
 * Random numbers follow the stream contract of rng/philox.h exactly as the
 * CPU driver does: Gaussian k = n * SDK_NN + j of step n, noise j, is lane
 * k & 3 of block k >> 2 of sdk_gauss4(seed, path, block, domain 0).  A
 * four-value register cache is refilled only when a block boundary is
 * crossed (one Philox call per four Gaussians), so the numbers do not depend
 * on how the steps are cut into launches.
 *
 * The module also holds the reduction kernels of the backend (they depend
 * only on `real`).  They compute in double, combine in a fixed order, and
 * test finiteness on the exponent bits so that fast-math cannot drop it. */
#include <limits.h>

#include "backend/backend.h"
#include "codegen/codegen_internal.h"

#define TPB 256

static const char REDUCTIONS[] =
    "\n/* ---- reductions (deterministic: fixed shapes, integer atomics only) ---- */\n"
    "static __device__ __forceinline__ int sdk_finite_(double x) {\n"
    "  return ((unsigned long long)__double_as_longlong(x) & 0x7ff0000000000000ull) !=\n"
    "         0x7ff0000000000000ull;\n"
    "}\n"
    "static __device__ __forceinline__ int sdk_isnan_(double x) {\n"
    "  return ((unsigned long long)__double_as_longlong(x) & 0x7fffffffffffffffull) >\n"
    "         0x7ff0000000000000ull;\n"
    "}\n"
    "/* Chan et al.: merge moments (nb, mb, qb) into (na, ma, qa). */\n"
    "static __device__ __forceinline__ void sdk_merge_(double &na, double &ma, double &qa,\n"
    "                                                   double nb, double mb, double qb) {\n"
    "  if (nb == 0.0) return;\n"
    "  if (na == 0.0) { na = nb; ma = mb; qa = qb; return; }\n"
    "  const double n = na + nb, d = mb - ma;\n"
    "  ma = ma + d * nb / n;\n"
    "  qa = qa + (qb + d * d * na * nb / n);\n"
    "  na = n;\n"
    "}\n"
    "/* One block per chunk of SDK_RED_CHUNK consecutive paths of a grid point:\n"
    " * chunk c of grid point g holds local paths g*ppg - path0 + c*SDK_RED_CHUNK + i.\n"
    " * Moments of variables v0..v0+nvr-1 (or of (x_v0 - mark) * scale when mark\n"
    " * is given) go to out[(chunk * nvr + k) * 3 + {n, mean, m2}], and the number\n"
    " * of non-finite values to nf[chunk * nvr + k]. */\n"
    "extern \"C\" __global__ void __launch_bounds__(SDK_RED_CHUNK)\n"
    "sdk_red_moments(const real *__restrict__ st, sdk_i64 npad, int v0, int nvr,\n"
    "                const real *__restrict__ mark, double scale, sdk_i64 ppg, sdk_i64 path0,\n"
    "                sdk_i64 nch, double *__restrict__ out, int *__restrict__ nf) {\n"
    "  __shared__ double sn[SDK_RED_CHUNK], sm[SDK_RED_CHUNK], sq[SDK_RED_CHUNK];\n"
    "  const int t = threadIdx.x;\n"
    "  const sdk_i64 chunk = blockIdx.x, g = chunk / nch, c = chunk - g * nch;\n"
    "  const sdk_i64 i = c * SDK_RED_CHUNK + t;\n"
    "  const int in = i < ppg;\n"
    "  const sdk_i64 p = g * ppg - path0 + i;\n"
    "  for (int k = 0; k < nvr; k++) {\n"
    "    double x = 0.0;\n"
    "    if (in) {\n"
    "      x = (double)st[(sdk_i64)(v0 + k) * npad + p];\n"
    "      if (mark) x = (x - (double)mark[p]) * scale;\n"
    "    }\n"
    "    const int ok = in && sdk_finite_(x);\n"
    "    const int bad = __syncthreads_count(in && !ok);\n"
    "    sn[t] = ok ? 1.0 : 0.0;\n"
    "    sm[t] = ok ? x : 0.0;\n"
    "    sq[t] = 0.0;\n"
    "    __syncthreads();\n"
    "    for (int s = SDK_RED_CHUNK / 2; s > 0; s >>= 1) {\n"
    "      if (t < s) {\n"
    "        double na = sn[t], ma = sm[t], qa = sq[t];\n"
    "        sdk_merge_(na, ma, qa, sn[t + s], sm[t + s], sq[t + s]);\n"
    "        sn[t] = na; sm[t] = ma; sq[t] = qa;\n"
    "      }\n"
    "      __syncthreads();\n"
    "    }\n"
    "    if (t == 0) {\n"
    "      double *o = out + (chunk * nvr + k) * 3;\n"
    "      o[0] = sn[0]; o[1] = sm[0]; o[2] = sq[0];\n"
    "      if (nf) nf[chunk * nvr + k] = bad;\n"
    "    }\n"
    "    __syncthreads();\n"
    "  }\n"
    "}\n"
    "/* Min and max (NaN ignored) of variable v per chunk: lohi[2 * chunk + {0, 1}]. */\n"
    "extern \"C\" __global__ void __launch_bounds__(SDK_RED_CHUNK)\n"
    "sdk_red_minmax(const real *__restrict__ st, sdk_i64 npad, int v, sdk_i64 ppg, sdk_i64 path0,\n"
    "               sdk_i64 nch, double *__restrict__ lohi) {\n"
    "  __shared__ double slo[SDK_RED_CHUNK], shi[SDK_RED_CHUNK];\n"
    "  const int t = threadIdx.x;\n"
    "  const sdk_i64 chunk = blockIdx.x, g = chunk / nch, c = chunk - g * nch;\n"
    "  const sdk_i64 i = c * SDK_RED_CHUNK + t;\n"
    "  double lo = __longlong_as_double(0x7ff0000000000000ll), hi = -lo;\n"
    "  if (i < ppg) {\n"
    "    const double x = (double)st[(sdk_i64)v * npad + g * ppg - path0 + i];\n"
    "    if (!sdk_isnan_(x)) lo = hi = x;\n"
    "  }\n"
    "  slo[t] = lo; shi[t] = hi;\n"
    "  __syncthreads();\n"
    "  for (int s = SDK_RED_CHUNK / 2; s > 0; s >>= 1) {\n"
    "    if (t < s) {\n"
    "      if (slo[t + s] < slo[t]) slo[t] = slo[t + s];\n"
    "      if (shi[t + s] > shi[t]) shi[t] = shi[t + s];\n"
    "    }\n"
    "    __syncthreads();\n"
    "  }\n"
    "  if (t == 0) { lohi[2 * chunk] = slo[0]; lohi[2 * chunk + 1] = shi[0]; }\n"
    "}\n"
    "/* Histogram of variable v: one thread per path q of the ngrid * ppg held;\n"
    " * per grid point g the range lo[g]..hi[g] in `bins` bins (x == hi goes to\n"
    " * the last bin), paths outside to under[g] / over[g], NaN nowhere. */\n"
    "extern \"C\" __global__ void __launch_bounds__(SDK_RED_CHUNK)\n"
    "sdk_red_hist(const real *__restrict__ st, sdk_i64 npad, int v, sdk_i64 ppg, sdk_i64 ngrid,\n"
    "             sdk_i64 path0, sdk_i64 bins, const double *__restrict__ lo,\n"
    "             const double *__restrict__ hi, unsigned long long *counts,\n"
    "             unsigned long long *under, unsigned long long *over) {\n"
    "  const sdk_i64 q = (sdk_i64)blockIdx.x * SDK_RED_CHUNK + threadIdx.x;\n"
    "  if (q >= ngrid * ppg) return;\n"
    "  const sdk_i64 g = q / ppg;\n"
    "  const double x = (double)st[(sdk_i64)v * npad + q - path0];\n"
    "  const double l = lo[g], h = hi[g];\n"
    "  if (sdk_isnan_(x)) return;\n"
    "  if (x < l) atomicAdd(&under[g], 1ull);\n"
    "  else if (x > h) atomicAdd(&over[g], 1ull);\n"
    "  else {\n"
    "    const double w = (h - l) / (double)bins;\n"
    "    sdk_i64 b = w > 0 ? (sdk_i64)((x - l) / w) : 0;\n"
    "    if (b >= bins) b = bins - 1;\n"
    "    if (b < 0) b = 0;\n"
    "    atomicAdd(&counts[g * bins + b], 1ull);\n"
    "  }\n"
    "}\n";

/* Fetch the Gaussian of noise j from the register cache (refilling it at a
 * block boundary) into sdk_z<j>. */
static void emit_gauss(sdk_strbuf *b, int j, const char *ind) {
  sdk_sb_printf(b,
                "%sif (sdk_rl == 4) {\n"
                "%s  real sdk_r[4];\n"
                "%s  sdk_rb++;\n"
                "%s  sdk_gauss4(sdk_seed, sdk_gpath, sdk_rb, 0, sdk_r);\n"
                "%s  sdk_c0 = sdk_r[0]; sdk_c1 = sdk_r[1]; sdk_c2 = sdk_r[2]; sdk_c3 = sdk_r[3];\n"
                "%s  sdk_rl = 0;\n"
                "%s}\n"
                "%sconst real sdk_z%d = sdk_rl == 0 ? sdk_c0 : sdk_rl == 1 ? sdk_c1 : sdk_rl == 2 "
                "? sdk_c2 : sdk_c3;\n"
                "%ssdk_rl++;\n",
                ind, ind, ind, ind, ind, ind, ind, ind, j, ind);
}

void sdk_cg_emit_cuda(sdk_strbuf *b, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  int nv = m->nvars, nn = m->nnoise;
  sdk_sb_printf(b, "\n#define SDK_TPB %d\n#define SDK_RED_CHUNK %d\n", TPB, SDK_RED_CHUNK);
  sdk_sb_printf(b, "extern \"C\" __device__ const int sdk_abi = %d;\n", SDK_KERNEL_ABI);

  /* init: one thread per path */
  sdk_sb_puts(b,
              "\nextern \"C\" __global__ void __launch_bounds__(SDK_TPB)\n"
              "sdk_init(real *__restrict__ st, sdk_i64 npad, const real *__restrict__ sv, "
              "sdk_i64 ppg, sdk_i64 ngrid, sdk_i64 path0, sdk_u64 sdk_seed) {\n"
              "  const sdk_i64 p = (sdk_i64)blockIdx.x * SDK_TPB + threadIdx.x;\n"
              "  if (p >= npad) return;\n"
              "  const sdk_u64 sdk_gpath = (sdk_u64)(path0 + p);\n"
              "  sdk_i64 g = (path0 + p) / ppg; if (g >= ngrid) g = ngrid - 1;\n"
              "  (void)sv; (void)g; (void)sdk_gpath; (void)sdk_seed;\n");
  sdk_cg_params(b, o, "sv[g * SDK_NSV + %d]", "  ");
  sdk_sb_puts(b, "  (void)sdk_sqdt;\n");
  for (int v = 0; v < nv; v++) sdk_sb_printf(b, "  real sdk_x%d;\n", v);
  sdk_cg_init(b, o, "  ");
  for (int v = 0; v < nv; v++) sdk_sb_printf(b, "  st[%d * npad + p] = sdk_x%d;\n", v, v);
  sdk_sb_puts(b, "}\n");

  /* advance: one thread per path, all nsteps in registers */
  sdk_sb_puts(b,
              "\nextern \"C\" __global__ void __launch_bounds__(SDK_TPB)\n"
              "sdk_advance(real *__restrict__ st, sdk_i64 npad, const real *__restrict__ sv, "
              "sdk_i64 ppg, sdk_i64 ngrid, sdk_i64 path0, sdk_i64 step0, sdk_i64 nsteps, "
              "sdk_u64 sdk_seed) {\n"
              "  const sdk_i64 p = (sdk_i64)blockIdx.x * SDK_TPB + threadIdx.x;\n"
              "  if (p >= npad || nsteps <= 0) return;\n"
              "  const sdk_u64 sdk_gpath = (sdk_u64)(path0 + p);\n"
              "  sdk_i64 g = (path0 + p) / ppg; if (g >= ngrid) g = ngrid - 1;\n"
              "  (void)sv; (void)g; (void)sdk_gpath; (void)sdk_seed;\n");
  sdk_cg_params(b, o, "sv[g * SDK_NSV + %d]", "  ");
  sdk_sb_puts(b, "  (void)sdk_sqdt;\n");
  for (int v = 0; v < nv; v++) sdk_sb_printf(b, "  real sdk_x%d = st[%d * npad + p];\n", v, v);
  if (nn > 0) {
    /* the cache holds block sdk_rb; sdk_rl of its lanes are used */
    sdk_sb_puts(b,
                "  const sdk_i64 sdk_k0 = step0 * SDK_NN;\n"
                "  sdk_u64 sdk_rb = (sdk_u64)(sdk_k0 >> 2);\n"
                "  int sdk_rl = (int)(sdk_k0 & 3);\n"
                "  real sdk_c0, sdk_c1, sdk_c2, sdk_c3;\n"
                "  {\n"
                "    real sdk_r[4];\n"
                "    sdk_gauss4(sdk_seed, sdk_gpath, sdk_rb, 0, sdk_r);\n"
                "    sdk_c0 = sdk_r[0]; sdk_c1 = sdk_r[1]; sdk_c2 = sdk_r[2]; sdk_c3 = sdk_r[3];\n"
                "  }\n");
  }
  /* time from the integer step index, never t += dt */
  int spp32 = o->spp > 0 && o->spp <= INT_MAX;
  if (o->spp > 0)
    sdk_sb_printf(b, "  %s sdk_ph = (%s)(step0 %% %lldLL);\n", spp32 ? "int" : "sdk_i64",
                  spp32 ? "int" : "sdk_i64", (long long)o->spp);
  sdk_sb_puts(b, "  for (sdk_i64 sdk_s = 0; sdk_s < nsteps; sdk_s++) {\n");
  if (o->spp > 0) sdk_sb_puts(b, "    const real sdk_t0 = (real)sdk_ph * sdk_dt;\n");
  else sdk_sb_puts(b, "    const real sdk_t0 = (real)(step0 + sdk_s) * sdk_dt;\n");
  for (int j = 0; j < nn; j++) emit_gauss(b, j, "    ");
  sdk_cg_step(b, o, "    ");
  if (o->spp > 0) sdk_sb_printf(b, "    if (++sdk_ph == %lldLL) sdk_ph = 0;\n", (long long)o->spp);
  sdk_sb_puts(b, "  }\n");
  for (int v = 0; v < nv; v++) sdk_sb_printf(b, "  st[%d * npad + p] = sdk_x%d;\n", v, v);
  sdk_sb_puts(b, "}\n");

  sdk_sb_puts(b, REDUCTIONS);
}
