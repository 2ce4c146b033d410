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
#include <stdio.h>
#include <string.h>

#include "codegen/codegen_internal.h"

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
    "}\n"
    "/* Histogram of (x_v mod period) on [0, period): block b takes paths\n"
    " * [b * per, (b + 1) * per) of the ngrid * ppg held, counting into shared memory\n"
    " * (bins <= shbins) for the grid point of its first path, then adds the block's\n"
    " * counts to counts[g * bins + bin] (integer atomics: deterministic). */\n"
    "extern \"C\" __global__ void __launch_bounds__(SDK_RED_CHUNK)\n"
    "sdk_red_hist_mod(const real *__restrict__ st, sdk_i64 npad, int v, sdk_i64 ppg, sdk_i64 "
    "ngrid,\n"
    "                 sdk_i64 bins, double period, sdk_i64 per, int shbins,\n"
    "                 unsigned long long *counts) {\n"
    "  extern __shared__ unsigned int sh[];\n"
    "  const sdk_i64 q0 = (sdk_i64)blockIdx.x * per, tot = ngrid * ppg;\n"
    "  const sdk_i64 q1 = q0 + per < tot ? q0 + per : tot;\n"
    "  const sdk_i64 g0 = q0 / ppg;\n"
    "  const double inv = 1.0 / period;\n"
    "  for (int k = threadIdx.x; k < shbins; k += SDK_RED_CHUNK) sh[k] = 0u;\n"
    "  __syncthreads();\n"
    "  for (sdk_i64 q = q0 + threadIdx.x; q < q1; q += SDK_RED_CHUNK) {\n"
    "    const double x = (double)st[(sdk_i64)v * npad + q];\n"
    "    if (!sdk_finite_(x)) continue;\n"
    "    double u = x * inv;\n"
    "    u -= floor(u);\n"
    "    sdk_i64 k = (sdk_i64)(u * (double)bins);\n"
    "    if (k >= bins) k = bins - 1;\n"
    "    if (k < 0) k = 0;\n"
    "    const sdk_i64 g = q / ppg;\n"
    "    if (g == g0 && shbins > 0) atomicAdd(&sh[k], 1u);\n"
    "    else atomicAdd(&counts[g * bins + k], 1ull);\n"
    "  }\n"
    "  __syncthreads();\n"
    "  for (int k = threadIdx.x; k < shbins; k += SDK_RED_CHUNK)\n"
    "    if (sh[k]) atomicAdd(&counts[g0 * bins + k], (unsigned long long)sh[k]);\n"
    "}\n";

static int gcd4(int n) {
  int a = 4, b = n;
  while (b) {
    int t = a % b;
    a = b;
    b = t;
  }
  return a;
}

void sdk_cg_emit_cuda(sdk_strbuf *b, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  int nv = m->nvars, nn = m->nnoise;
  sdk_sb_printf(b, "\n#define SDK_TPB %d\n#define SDK_RED_CHUNK %d\n", SDK_CUDA_TPB, SDK_RED_CHUNK);
  sdk_sb_printf(b, "extern \"C\" __device__ const int sdk_abi = %d;\n", SDK_KERNEL_ABI);
  if (o->compensate)
    sdk_sb_printf(b, "extern \"C\" __device__ const int sdk_state_rows = %d;\n",
                  (o->comp_defer ? 3 : 2) * nv);

  /* init: one thread per path */
  sdk_sb_puts(b, "\nextern \"C\" __global__ void __launch_bounds__(SDK_TPB)\n"
                 "sdk_init(real *__restrict__ st, sdk_i64 npad, const real *__restrict__ sv, "
                 "sdk_i64 ppg, sdk_i64 ngrid, sdk_i64 path0, sdk_u64 sdk_seed) {\n"
                 "  const sdk_i64 p = (sdk_i64)blockIdx.x * SDK_TPB + threadIdx.x;\n"
                 "  if (p >= npad) return;\n"
                 "  const sdk_u64 sdk_gpath = (sdk_u64)(path0 + p);\n"
                 "  sdk_i64 g = (path0 + p) / ppg; if (g >= ngrid) g = ngrid - 1;\n"
                 "  (void)sv; (void)g; (void)sdk_gpath; (void)sdk_seed;\n");
  sdk_cg_params(b, o, "sv[g * SDK_NSV + %d]", "  ");
  sdk_sb_puts(b, "  (void)sdk_sqdt;\n");
  for (int v = 0; v < nv; v++)
    sdk_sb_printf(b, "  real sdk_x%d;\n", v);
  sdk_cg_init(b, o, "  ");
  for (int v = 0; v < nv; v++)
    sdk_sb_printf(b, "  st[%d * npad + p] = sdk_x%d;\n", v, v);
  for (int v = 0; o->compensate && v < nv; v++)
    sdk_sb_printf(b, "  st[%d * npad + p] = 0;\n", nv + v);
  for (int v = 0; o->compensate && o->comp_defer && v < nv; v++)
    sdk_sb_printf(b, "  st[%d * npad + p] = sdk_x%d;\n", 2 * nv + v, v);
  sdk_sb_puts(b, "}\n");
  if (o->sysmode) {
    /* systems of interacting particles: their own step kernel (sys_cuda.c) */
    sdk_cg_emit_sys_cuda(b, o);
    sdk_sb_puts(b, REDUCTIONS);
    return;
  }

  /* advance: one thread per path, all nsteps in registers.
   *
   * Steps are done in groups of G steps whose Gaussians are exactly whole
   * Philox blocks (G * SDK_NN a multiple of 4), fully unrolled, so every
   * Gaussian sits in a register named at compile time: no cache index, no
   * refill branch.  Steps before the first group boundary and after the last
   * whole group draw their block directly (slow but at most G-1 per end). */
  int G = nn > 0 ? 4 / gcd4(nn) : 1;
  int nblk_group = nn > 0 ? G * nn / 4 : 0;
  /* deferred compensation renormalises at the group ends (codegen.h) */
  const int defer = o->compensate && o->comp_defer;
  /* time-only subexpressions from a per-phase table (periodic models) */
  sdk_cg_hoist h;
  memset(&h, 0, sizeof h);
  h.o = o;
  h.enabled = o->spp > 0 && o->spp <= SDK_CUDA_MAX_TTAB && o->dt_column < 0;
  h.phase_only = 1; /* the table is indexed by the phase */
  sdk_strbuf step;
  sdk_sb_init(&step);
  sdk_cg_step_h(&step, o, "      ", h.enabled ? &h : NULL);
  int nslot = 0, slot_stage[SDK_MAX_STAGES * SDK_CG_MAX_HOIST],
      slot_k[SDK_MAX_STAGES * SDK_CG_MAX_HOIST];
  for (int i = 0; i < SDK_MAX_STAGES; i++)
    for (int k = 0; k < h.n; k++)
      if (h.used[i] & (1u << k)) slot_stage[nslot] = i, slot_k[nslot++] = k;
  if (nslot > 0) {
    sdk_sb_printf(b, "\n#define SDK_TT_SLOTS %d\n#define SDK_TT_PHASES %lld\n", nslot,
                  (long long)o->spp);
    sdk_sb_puts(
        b, "extern \"C\" __device__ __align__(16) real sdk_ttab[SDK_TT_PHASES * SDK_TT_SLOTS];\n"
           "/* fills the table once per module: value of each time-only expression\n"
           " * at every phase of the period and stage time */\n"
           "extern \"C\" __global__ void sdk_ttab_fill(void) {\n"
           "  const int ph = blockIdx.x * blockDim.x + threadIdx.x;\n"
           "  if (ph >= SDK_TT_PHASES) return;\n");
    sdk_cg_fixed_params(b, o, "  ");
    sdk_sb_puts(b, "  const real sdk_dt = ");
    {
      char buf[64];
      snprintf(buf, sizeof buf, "%.17g", o->dt);
      if (!strpbrk(buf, ".eEn")) strcat(buf, ".0");
      sdk_sb_printf(b, "%s%s;\n", buf, o->single ? "f" : "");
    }
    /* (no absolute time here: a tabulated value depends on the phase only) */
    sdk_sb_puts(b, "  const real sdk_tp0 = (real)ph * sdk_dt;\n");
    sdk_cg_hoist_decls(b, o, &h, "  ");
    for (int sl = 0; sl < nslot; sl++)
      sdk_sb_printf(b, "  sdk_ttab[ph * SDK_TT_SLOTS + %d] = sdk_T%d_%d;\n", sl, slot_stage[sl],
                    slot_k[sl]);
    sdk_sb_puts(b, "}\n");
  }

  /* Each thread advances L paths (p and p + SDK_TPB, ...): their steps are
   * independent, so interleaving them gives the scheduler instructions to
   * issue while one path waits on a special-function result. */
  /* L = 2 measured no faster on the H100 (6.24e11 vs 6.27e11 steps/s,
   * docs/BENCHMARKS.md): the kernel is bound by issue and the MUFU pipe,
   * not by latency; keep one path per thread and fewer registers. */
  const int L = 1;
  sdk_sb_printf(
      b, "\n#define SDK_ILP %d\nextern \"C\" __device__ const int sdk_paths_per_thread = %d;\n", L,
      L);
  /* the step as a function of one path's state and values */
  sdk_sb_puts(b, "\nstatic __device__ __forceinline__ void sdk_step(");
  for (int v = 0; v < nv; v++)
    sdk_sb_printf(b, "%sreal &sdk_x%d", v ? ", " : "", v);
  for (int v = 0; o->compensate && v < nv; v++)
    sdk_sb_printf(b, ", real &sdk_c%d", v);
  for (int v = 0; o->compensate && o->comp_defer && v < nv; v++)
    sdk_sb_printf(b, ", const real sdk_hi%d", v);
  for (int i = 0; i < m->nparams; i++)
    if (o->scan_column[i] >= 0) {
      sdk_sb_puts(b, ", const real ");
      sdk_cg_name(b, m->params[i]);
    }
  if (o->dt_column >= 0) sdk_sb_puts(b, ", const real sdk_dt");
  /* the step's absolute time and, with a period, its phase time */
  sdk_sb_puts(b, ", const real sdk_t0");
  if (o->spp > 0) sdk_sb_puts(b, ", const real sdk_tp0");
  for (int sl = 0; sl < nslot; sl++)
    sdk_sb_printf(b, ", const real sdk_T%d_%d", slot_stage[sl], slot_k[sl]);
  for (int j = 0; j < nn; j++)
    sdk_sb_printf(b, ", const real sdk_z%d", j);
  sdk_sb_puts(b, ") {\n");
  sdk_cg_fixed_params(b, o, "  ");
  for (int i = 0; i < m->nparams; i++)
    if (o->scan_column[i] >= 0) {
      sdk_sb_puts(b, "  (void)");
      sdk_cg_name(b, m->params[i]);
      sdk_sb_puts(b, ";\n");
    }
  if (o->dt_column < 0) {
    char buf[64];
    snprintf(buf, sizeof buf, "%.17g", o->dt);
    if (!strpbrk(buf, ".eEn")) strcat(buf, ".0");
    sdk_sb_printf(b, "  const real sdk_dt = %s%s;\n", buf, o->single ? "f" : "");
  }
  sdk_sb_printf(b, "  const real sdk_sqdt = %s(sdk_dt);\n  (void)sdk_sqdt; (void)sdk_t0;%s\n",
                o->single ? "sqrtf" : "sqrt", o->spp > 0 ? " (void)sdk_tp0;" : "");
  sdk_sb_puts(b, step.s ? step.s : "");
  sdk_sb_puts(b, "}\n");

  sdk_sb_puts(b, "\nextern \"C\" __global__ void __launch_bounds__(SDK_TPB)\n"
                 "sdk_advance(real *__restrict__ st, sdk_i64 npad, const real *__restrict__ sv, "
                 "sdk_i64 ppg, sdk_i64 ngrid, sdk_i64 path0, sdk_i64 step0, sdk_i64 nsteps, "
                 "sdk_u64 sdk_seed) {\n"
                 "  const sdk_i64 base = (sdk_i64)blockIdx.x * (SDK_TPB * SDK_ILP) + threadIdx.x;\n"
                 "  if (base >= npad || nsteps <= 0) return;\n"
                 "  (void)sv; (void)sdk_seed;\n");
  for (int q = 0; q < L; q++) {
    sdk_sb_printf(
        b,
        "  const sdk_i64 p%d = base + %d * SDK_TPB;\n"
        "  const sdk_u64 gp%d = (sdk_u64)(path0 + p%d); (void)gp%d;\n"
        "  sdk_i64 g%d = (path0 + p%d) / ppg; if (g%d >= ngrid) g%d = ngrid - 1; (void)g%d;\n",
        q, q, q, q, q, q, q, q, q, q);
    for (int i = 0; i < m->nparams; i++)
      if (o->scan_column[i] >= 0)
        sdk_sb_printf(b, "  const real sp%d_%d = sv[g%d * SDK_NSV + %d];\n", q, i, q,
                      o->scan_column[i]);
    if (o->dt_column >= 0)
      sdk_sb_printf(b, "  const real dt%d = sv[g%d * SDK_NSV + %d];\n", q, q, o->dt_column);
    for (int v = 0; v < nv; v++)
      sdk_sb_printf(b, "  real x%d_%d = st[%d * npad + p%d];\n", q, v, v, q);
    for (int v = 0; o->compensate && v < nv; v++)
      sdk_sb_printf(b, "  real c%d_%d = st[%d * npad + p%d];\n", q, v, nv + v, q);
    for (int v = 0; defer && v < nv; v++)
      sdk_sb_printf(b, "  real h%d_%d = st[%d * npad + p%d];\n", q, v, 2 * nv + v, q);
  }
  sdk_sb_puts(b, "  sdk_i64 n = step0;\n  const sdk_i64 nend = step0 + nsteps;\n");
  int spp32 = o->spp > 0 && o->spp <= INT_MAX;
  const char *pht = spp32 ? "int" : "sdk_i64";
  if (o->spp > 0)
    sdk_sb_printf(b, "  %s sdk_ph = (%s)(step0 %% %lldLL);\n", pht, pht, (long long)o->spp);
  /* the dt of the time for sdk_t0: per path when it varies (then no table) */
  for (int pass = 0; pass < 3; pass++) {
    /* pass 0: head (until a group boundary), 1: whole groups, 2: tail */
    if (pass == 0)
      sdk_sb_printf(b, "  while (n < nend && (n %% %d) != 0) {\n", G);
    else if (pass == 1)
      /* whole groups with a 32-bit count and the Philox counter as base +
       * offset: the 64-bit step arithmetic stays out of the loop, and the
       * unrolled body amortises the loop control and the table pointer
       * (38.9 instead of 41.3 SASS instructions per josephson SRK2 step) */
      sdk_sb_printf(b,
                    "  while (nend - n >= %d) {\n"
                    "   const sdk_i64 sdk_left = (nend - n) / %d;\n"
                    "   const int sdk_ng = sdk_left > (1 << 30) ? (1 << 30) : (int)sdk_left;\n"
                    "   const sdk_u64 sdk_c0 = (sdk_u64)((n * SDK_NN) >> 2);\n"
                    "   (void)sdk_c0;\n"
                    "   #pragma unroll %d\n"
                    "   for (int sdk_gi = 0; sdk_gi < sdk_ng; sdk_gi++) {\n"
                    "    const sdk_i64 sdk_n = n + (sdk_i64)sdk_gi * %d; (void)sdk_n;\n",
                    G, G, o->single ? 4 : 2, G);
    else
      sdk_sb_puts(b, "  while (n < nend) {\n");
    int reps = pass == 1 ? G : 1;
    /* with spp a multiple of G, a group never wraps the period: one table
     * pointer per group; 16-byte loads when its values fill whole vectors */
    int grouptab = pass == 1 && nslot > 0 && o->spp % G == 0;
    int per_vec = o->single ? 4 : 2;
    int vecload = grouptab && (G * nslot) % per_vec == 0;
    if (grouptab) sdk_sb_puts(b, "    const real *sdk_tt = sdk_ttab + sdk_ph * SDK_TT_SLOTS;\n");
    if (vecload)
      for (int qv = 0; qv < G * nslot / per_vec; qv++)
        sdk_sb_printf(b, "    const %s sdk_tv%d = ((const %s *)sdk_tt)[%d];\n",
                      o->single ? "float4" : "double2", qv, o->single ? "float4" : "double2", qv);
    if (pass == 1)
      for (int q = 0; q < L; q++)
        for (int k = 0; k < nblk_group; k++)
          sdk_sb_printf(
              b,
              "    real r%d_%d[4];\n"
              "    sdk_gauss4(sdk_seed, gp%d, sdk_c0 + (sdk_u64)sdk_gi * %d + %d, 0, r%d_%d);\n",
              q, k, q, nblk_group, k, q, k);
    for (int r = 0; r < reps; r++) {
      sdk_sb_puts(b, "    {\n");
      /* time of the step (per path only when dt varies): the step index,
       * and with a period the phase index */
      const char *tphase = grouptab ? NULL : "(real)sdk_ph";
      char tph[64], tstep[64];
      if (grouptab) snprintf(tph, sizeof tph, "(real)(sdk_ph + %d)", r), tphase = tph;
      if (pass == 1)
        snprintf(tstep, sizeof tstep, "(double)(sdk_n + %d)", r);
      else
        snprintf(tstep, sizeof tstep, "(double)n");
      for (int sl = 0; sl < nslot; sl++) {
        int idx = r * nslot + sl;
        if (vecload)
          sdk_sb_printf(b, "      const real T%d = sdk_tv%d.%c;\n", sl, idx / per_vec,
                        "xyzw"[idx % per_vec]);
        else if (grouptab)
          sdk_sb_printf(b, "      const real T%d = sdk_tt[%d];\n", sl, idx);
        else
          sdk_sb_printf(b, "      const real T%d = sdk_ttab[sdk_ph * SDK_TT_SLOTS + %d];\n", sl,
                        sl);
      }
      for (int q = 0; q < L; q++) {
        for (int j = 0; j < nn; j++) {
          if (pass == 1) {
            int k = r * nn + j;
            sdk_sb_printf(b, "      const real z%d_%d = r%d_%d[%d];\n", q, j, q, k >> 2, k & 3);
          } else {
            sdk_sb_printf(b,
                          "      real z%d_%d;\n"
                          "      {\n"
                          "        const sdk_i64 k = n * SDK_NN + %d;\n"
                          "        real r[4];\n"
                          "        sdk_gauss4(sdk_seed, gp%d, (sdk_u64)(k >> 2), 0, r);\n"
                          "        const int l = (int)(k & 3);\n"
                          "        z%d_%d = l == 0 ? r[0] : l == 1 ? r[1] : l == 2 ? r[2] : r[3];\n"
                          "      }\n",
                          q, j, j, q, q, j);
          }
        }
        sdk_sb_puts(b, "      sdk_step(");
        for (int v = 0; v < nv; v++)
          sdk_sb_printf(b, "%sx%d_%d", v ? ", " : "", q, v);
        for (int v = 0; o->compensate && v < nv; v++)
          sdk_sb_printf(b, ", c%d_%d", q, v);
        for (int v = 0; defer && v < nv; v++)
          sdk_sb_printf(b, ", h%d_%d", q, v);
        for (int i = 0; i < m->nparams; i++)
          if (o->scan_column[i] >= 0) sdk_sb_printf(b, ", sp%d_%d", q, i);
        if (o->dt_column >= 0) {
          sdk_sb_printf(b, ", dt%d, (real)(%s * (double)dt%d)", q, tstep, q);
          if (o->spp > 0) sdk_sb_printf(b, ", %s * dt%d", tphase, q);
        } else {
          char buf[64];
          snprintf(buf, sizeof buf, "%.17g", o->dt);
          if (!strpbrk(buf, ".eEn")) strcat(buf, ".0");
          sdk_sb_printf(b, ", (real)(%s * %s)", tstep, buf);
          if (o->spp > 0) sdk_sb_printf(b, ", %s * %s%s", tphase, buf, o->single ? "f" : "");
        }
        for (int sl = 0; sl < nslot; sl++)
          sdk_sb_printf(b, ", T%d", sl);
        for (int j = 0; j < nn; j++)
          sdk_sb_printf(b, ", z%d_%d", q, j);
        sdk_sb_puts(b, ");\n");
      }
      if (pass != 1) sdk_sb_puts(b, "      n++;\n");
      /* deferred compensation: Fast2Sum of h + l at every group end (codegen.h) */
      if (defer && (pass != 1 || r == G - 1)) {
        if (pass != 1) sdk_sb_printf(b, "      if (n %% %d == 0) {\n", G);
        for (int q = 0; q < L; q++)
          for (int v = 0; v < nv; v++)
            sdk_sb_printf(b, "        c%d_%d = c%d_%d - (x%d_%d - h%d_%d); h%d_%d = x%d_%d;\n", q,
                          v, q, v, q, v, q, v, q, v, q, v);
        if (pass != 1) sdk_sb_puts(b, "      }\n");
      }
      if (o->spp > 0 && !grouptab)
        sdk_sb_printf(b, "      if (++sdk_ph == %lldLL) sdk_ph = 0;\n", (long long)o->spp);
      sdk_sb_puts(b, "    }\n");
    }
    if (grouptab)
      sdk_sb_printf(b, "    sdk_ph += %d;\n    if (sdk_ph == %lldLL) sdk_ph = 0;\n", G,
                    (long long)o->spp);
    if (pass == 1) sdk_sb_printf(b, "   }\n   n += (sdk_i64)sdk_ng * %d;\n", G);
    sdk_sb_puts(b, "  }\n");
  }
  sdk_sb_free(&step);
  for (int q = 0; q < L; q++)
    for (int v = 0; v < nv; v++)
      sdk_sb_printf(b, "  st[%d * npad + p%d] = x%d_%d;\n", v, q, q, v);
  for (int q = 0; o->compensate && q < L; q++)
    for (int v = 0; v < nv; v++)
      sdk_sb_printf(b, "  st[%d * npad + p%d] = c%d_%d;\n", nv + v, q, q, v);
  for (int q = 0; defer && q < L; q++)
    for (int v = 0; v < nv; v++)
      sdk_sb_printf(b, "  st[%d * npad + p%d] = h%d_%d;\n", 2 * nv + v, q, q, v);
  sdk_sb_puts(b, "}\n");

  sdk_sb_puts(b, REDUCTIONS);
}
