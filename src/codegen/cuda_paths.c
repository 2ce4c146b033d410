/* CUDA driver of independent paths: kernels for NVRTC (no system headers).
 *
 * One thread per path (Januszewski & Kostur 2010, Alg. 1): the path's state,
 * parameters and noise values stay in registers for all the steps of a
 * launch; only the final state goes back to global memory.
 *
 * Noise follows the stream contract of rng/philox.h exactly as the CPU
 * driver does: value k = n * SDK_NN + j of step n, noise j, is lane k & 3 of
 * block k >> 2 of the path's stream (domain 0), so the numbers do not depend
 * on how the steps are cut into launches.
 *
 * Steps are done in groups of G steps whose noise values are exactly whole
 * Philox blocks (G * SDK_NN a multiple of 4), fully unrolled, so every value
 * sits in a register named at compile time: no cache index, no refill
 * branch.  Steps before the first group boundary and after the last whole
 * group draw their block directly (slow but at most G-1 per end). */
#include <limits.h>
#include <stdio.h>

#include "codegen/boundary.h"
#include "codegen/codegen.h"
#include "codegen/common.h"
#include "codegen/drivers.h"
#include "codegen/events.h"
#include "codegen/expr_emit.h"

void sdk_cg_cuda_head(sdk_emit *em, const sdk_codegen_opts *o) {
  int nv = o->model->nvars;
  sdk_em_puts(em, "\n");
  sdk_em_line(em, "#define SDK_TPB %d", SDK_CUDA_TPB);
  sdk_em_line(em, "#define SDK_RED_CHUNK %d", SDK_RED_CHUNK);
  sdk_em_line(em, "extern \"C\" __device__ const int sdk_abi = %d;", SDK_KERNEL_ABI);
  sdk_cg_row_layout rows;
  sdk_cg_rows(o, &rows);
  if (rows.total > nv)
    sdk_em_line(em, "extern \"C\" __device__ const int sdk_state_rows = %d;", rows.total);

  /* init: one thread per path */
  sdk_em_puts(em, "\n");
  sdk_em_line(em, "extern \"C\" __global__ void __launch_bounds__(SDK_TPB)");
  sdk_em_open(em, "sdk_init(real *__restrict__ st, sdk_i64 npad, const real *__restrict__ sv, "
                  "sdk_i64 ppg, sdk_i64 ngrid, sdk_i64 path0, sdk_u64 sdk_seed)");
  sdk_em_text(em, "const sdk_i64 p = (sdk_i64)blockIdx.x * SDK_TPB + threadIdx.x;\n"
                  "if (p >= npad) return;\n"
                  "const sdk_u64 sdk_gpath = (sdk_u64)(path0 + p);\n"
                  "sdk_i64 g = (path0 + p) / ppg; if (g >= ngrid) g = ngrid - 1;\n"
                  "(void)sv; (void)g; (void)sdk_gpath; (void)sdk_seed;\n");
  sdk_cg_init_path(em, o, o->compensate && o->comp_defer);
  sdk_em_close(em);
}

/* What the parts of sdk_advance share. */
typedef struct {
  const sdk_codegen_opts *o;
  int G;          /* steps per group */
  int nblk_group; /* Philox blocks per group */
  int defer;      /* deferred compensation: renormalise at the group ends (codegen.h) */
  int L;          /* paths per thread */
  /* the time-only values the step takes, from the per-phase table */
  int nslot, slot_stage[SDK_MAX_STAGES * SDK_CG_MAX_HOIST],
      slot_k[SDK_MAX_STAGES * SDK_CG_MAX_HOIST];
  /* within a pass of the steps (see emit_pass) */
  int pass, grouptab, vecload, per_vec;
} cu_adv;

static int gcd4(int n) {
  int a = 4, b = n;
  while (b) {
    int t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* The table of the time-only values at every phase of the period and stage
 * time, filled once per module. */
static void emit_ttab(sdk_emit *em, const cu_adv *a, const sdk_cg_hoist *h) {
  const sdk_codegen_opts *o = a->o;
  sdk_em_puts(em, "\n");
  sdk_em_line(em, "#define SDK_TT_SLOTS %d", a->nslot);
  sdk_em_line(em, "#define SDK_TT_PHASES %lld", (long long)o->spp);
  sdk_em_text(em,
              "extern \"C\" __device__ __align__(16) real sdk_ttab[SDK_TT_PHASES * SDK_TT_SLOTS];\n"
              "/* fills the table once per module: value of each time-only expression\n"
              " * at every phase of the period and stage time */\n");
  sdk_em_open(em, "extern \"C\" __global__ void sdk_ttab_fill(void)");
  sdk_em_text(em, "const int ph = blockIdx.x * blockDim.x + threadIdx.x;\n"
                  "if (ph >= SDK_TT_PHASES) return;\n");
  sdk_cg_fixed_params(em, o);
  sdk_em_start(em, "const real sdk_dt = ");
  sdk_em_number(em, o->dt);
  sdk_em_puts(em, ";\n");
  /* (no absolute time here: a tabulated value depends on the phase only) */
  sdk_em_line(em, "const real sdk_tp0 = (real)ph * sdk_dt;");
  sdk_cg_hoist_decls(em, o, h);
  for (int sl = 0; sl < a->nslot; sl++)
    sdk_em_line(em, "sdk_ttab[ph * SDK_TT_SLOTS + %d] = sdk_T%d_%d;", sl, a->slot_stage[sl],
                a->slot_k[sl]);
  sdk_em_close(em);
}

/* The per-grid-point values a device function of one path takes as
 * arguments: ", const real NAME" for every scanned parameter, then the step
 * when it varies with the grid point. */
static void emit_value_args(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  for (int i = 0; i < m->nparams; i++)
    if (o->scan_column[i] >= 0) {
      sdk_em_puts(em, ", const real ");
      sdk_em_name(em, m->params[i]);
    }
  if (o->dt_column >= 0) sdk_em_puts(em, ", const real sdk_dt");
}

/* ... and the head of its body: the fixed parameters as constants, the
 * scanned ones marked used, a constant step. */
static void emit_value_head(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  sdk_cg_fixed_params(em, o);
  for (int i = 0; i < m->nparams; i++)
    if (o->scan_column[i] >= 0) {
      sdk_em_start(em, "(void)");
      sdk_em_name(em, m->params[i]);
      sdk_em_puts(em, ";\n");
    }
  if (o->dt_column < 0) {
    sdk_em_start(em, "const real sdk_dt = ");
    sdk_em_number(em, o->dt);
    sdk_em_puts(em, ";\n");
  }
}

/* The step as a function `name` of one path's state and values (`step`: its body). */
static void emit_step_fn(sdk_emit *em, const cu_adv *a, const sdk_strbuf *step, const char *name) {
  const sdk_codegen_opts *o = a->o;
  const sdk_model *m = o->model;
  int nv = m->nvars;
  sdk_em_puts(em, "\n");
  sdk_em_start(em, "static __device__ __forceinline__ void %s(", name);
  for (int v = 0; v < nv; v++)
    sdk_em_printf(em, "%sreal &sdk_x%d", v ? ", " : "", v);
  for (int v = 0; o->compensate && v < nv; v++)
    sdk_em_printf(em, ", real &sdk_c%d", v);
  int bound = m->nbound > 0, ev = sdk_cg_has_events(m);
  /* (a reflection or a dichotomous switch moves the high part) */
  for (int v = 0; a->defer && v < nv; v++)
    sdk_em_printf(em, bound || ev ? ", real &sdk_hi%d" : ", const real sdk_hi%d", v);
  if (bound) sdk_em_puts(em, ", real &sdk_bs, real &sdk_bl, real &sdk_bh");
  if (bound || ev)
    sdk_em_puts(em, ", const sdk_i64 sdk_nstep, const sdk_u64 sdk_seed, const sdk_u64 sdk_gpath");
  emit_value_args(em, o);
  /* the step's absolute time and, with a period, its phase time */
  sdk_em_puts(em, ", const real sdk_t0");
  if (o->spp > 0) sdk_em_puts(em, ", const real sdk_tp0");
  for (int sl = 0; sl < a->nslot; sl++)
    sdk_em_printf(em, ", const real sdk_T%d_%d", a->slot_stage[sl], a->slot_k[sl]);
  for (int j = 0; j < m->nnoise; j++)
    sdk_em_printf(em, ", const real sdk_z%d", j);
  sdk_em_puts(em, ") {\n");
  em->depth++;
  emit_value_head(em, o);
  sdk_em_line(em, "const real sdk_sqdt = %s(sdk_dt);", o->single ? "sqrtf" : "sqrt");
  sdk_em_line(em, "(void)sdk_sqdt; (void)sdk_t0;%s", o->spp > 0 ? " (void)sdk_tp0;" : "");
  sdk_em_append(em, step);
  sdk_em_close(em);
}

/* Time averages: the accumulation after a step as a function of one path's
 * state, values and the index of the state (codegen.h). */
static void emit_tavg_fn(sdk_emit *em, const cu_adv *a) {
  const sdk_codegen_opts *o = a->o;
  const sdk_model *m = o->model;
  if (!o->tavg) return;
  sdk_em_puts(em, "\n");
  sdk_em_start(em, "static __device__ __forceinline__ void sdk_tavg(");
  for (int v = 0; v < m->nvars; v++)
    sdk_em_printf(em, "%sconst real sdk_x%d", v ? ", " : "", v);
  emit_value_args(em, o);
  sdk_em_puts(em, ", const sdk_i64 sdk_na");
  for (int j = 0; j < m->nobs + m->nvars; j++)
    sdk_em_printf(em, ", real &sdk_s%d, real &sdk_e%d", j, j);
  sdk_em_puts(em, ") {\n");
  em->depth++;
  emit_value_head(em, o);
  sdk_cg_tavg_add(em, o, "sdk_x%d", "sdk_s%d", "sdk_e%d", "sdk_na");
  sdk_em_close(em);
}

/* The step just taken, r steps into the pass, as the kernel names it. */
static void pass_step(const cu_adv *a, int r, char *buf, size_t n) {
  if (a->pass == 1)
    snprintf(buf, n, "(sdk_n + %d)", r);
  else
    snprintf(buf, n, "n");
}

/* "if (STEP >= SDK_TAVG_FROM) sdk_tavg(...)" of path q after step r of the pass */
static void emit_tavg_call(sdk_emit *em, const cu_adv *a, int q, int r) {
  const sdk_codegen_opts *o = a->o;
  const sdk_model *m = o->model;
  if (!o->tavg) return;
  char step[64];
  pass_step(a, r, step, sizeof step);
  sdk_em_start(em, "if (%s >= SDK_TAVG_FROM) sdk_tavg(", step);
  for (int v = 0; v < m->nvars; v++)
    sdk_em_printf(em, "%sx%d_%d", v ? ", " : "", q, v);
  for (int i = 0; i < m->nparams; i++)
    if (o->scan_column[i] >= 0) sdk_em_printf(em, ", sp%d_%d", q, i);
  if (o->dt_column >= 0) sdk_em_printf(em, ", dt%d", q);
  sdk_em_printf(em, ", %s + 1", step);
  for (int j = 0; j < m->nobs + m->nvars; j++)
    sdk_em_printf(em, ", as%d_%d, ae%d_%d", q, j, q, j);
  sdk_em_puts(em, ");\n");
}

/* --dt-check: after step STEP of path q, the coupled coarse path
 * (codegen.h): the noise of an even step waits; after an odd one the coarse
 * step sdk_step_c from t_{STEP-1} over 2 dt with the pair's summed noise,
 * its time averages, and at step SDK_DTC_MARK the displacements' origin */
static void emit_coarse_call(sdk_emit *em, const cu_adv *a, int q, int r) {
  const sdk_codegen_opts *o = a->o;
  const sdk_model *m = o->model;
  int nv = m->nvars, nn = m->nnoise;
  if (!o->dt_check) return;
  char st[64];
  pass_step(a, r, st, sizeof st);
  sdk_em_open(em, "if ((%s & 1) == 0)", st);
  for (int j = 0; j < nn; j++)
    sdk_em_line(em, "zh%d_%d = z%d_%d;", q, j, q, j);
  sdk_em_close(em);
  sdk_em_open(em, "else");
  /* [boundaries]: the coarse copy has its own status (boundary.c), frozen
   * when absorbed as the fine one (whose step the caller skips alone) */
  int bound = m->nbound > 0;
  if (bound) sdk_em_open(em, "if (cb%d_0 == (real)0)", q);
  sdk_em_start(em, "sdk_step_c(");
  for (int v = 0; v < nv; v++)
    sdk_em_printf(em, "%sxc%d_%d", v ? ", " : "", q, v);
  for (int v = 0; o->compensate && v < nv; v++)
    sdk_em_printf(em, ", cc%d_%d", q, v);
  if (bound) sdk_em_printf(em, ", cb%d_0, cb%d_1, cb%d_2, %s, sdk_seed, gp%d", q, q, q, st, q);
  for (int i = 0; i < m->nparams; i++)
    if (o->scan_column[i] >= 0) sdk_em_printf(em, ", sp%d_%d", q, i);
  if (o->dt_column >= 0) {
    sdk_em_printf(em, ", (real)2 * dt%d, (real)((double)(%s - 1) * (double)dt%d)", q, st, q);
    if (o->spp > 0)
      sdk_em_printf(em, ", (real)((%s - 1) %% %lldLL) * dt%d", st, (long long)o->spp, q);
  } else {
    sdk_em_printf(em, ", (real)((double)(%s - 1) * ", st);
    sdk_em_double(em, o->dt);
    sdk_em_puts(em, ")");
    if (o->spp > 0) {
      sdk_em_printf(em, ", (real)((%s - 1) %% %lldLL) * ", st, (long long)o->spp);
      sdk_em_number(em, o->dt);
    }
  }
  for (int j = 0; j < nn; j++)
    sdk_em_printf(em, ", (zh%d_%d + z%d_%d) * (real)0.70710678118654752", q, j, q, j);
  sdk_em_puts(em, ");\n");
  if (o->tavg) { /* the coarse state after the pair is state STEP + 1 */
    sdk_em_start(em, "if (%s - 1 >= SDK_TAVG_FROM) sdk_tavg(", st);
    for (int v = 0; v < nv; v++)
      sdk_em_printf(em, "%sxc%d_%d", v ? ", " : "", q, v);
    for (int i = 0; i < m->nparams; i++)
      if (o->scan_column[i] >= 0) sdk_em_printf(em, ", sp%d_%d", q, i);
    if (o->dt_column >= 0) sdk_em_printf(em, ", dt%d", q);
    sdk_em_printf(em, ", %s + 1", st);
    for (int j = 0; j < m->nobs + nv; j++)
      sdk_em_printf(em, ", acs%d_%d, aces%d_%d", q, j, q, j);
    sdk_em_puts(em, ");\n");
  }
  if (bound) sdk_em_close(em);
  sdk_em_open(em, "if (%s + 1 == SDK_DTC_MARK)", st);
  for (int v = 0; v < nv; v++)
    sdk_em_line(em, "d0%d_%d = xc%d_%d - x%d_%d;", q, v, q, v, q, v);
  sdk_em_close(em);
  sdk_em_close(em);
}

/* --dt-check: the coarse path's rows of path q in (out = 0) or out */
static void emit_coarse_io(sdk_emit *em, const cu_adv *a, int q, int out) {
  const sdk_codegen_opts *o = a->o;
  const sdk_model *m = o->model;
  if (!o->dt_check) return;
  sdk_cg_row_layout l;
  sdk_cg_rows(o, &l);
  struct {
    const char *name;
    int row, n, stride;
  } blk[] = {{"xc", l.dtc, m->nvars, 1},
             {"cc", l.dtc_comp, m->nvars, 1},
             {"zh", l.dtc_z, m->nnoise, 1},
             {"d0", l.dtc_d0, m->nvars, 1},
             {"acs", l.dtc_tavg, l.ntavg, 2},
             {"aces", l.dtc_tavg + 1, l.ntavg, 2},
             {"cb", l.dtc_bound, SDK_CG_BOUND_ROWS, 1}};
  for (size_t b = 0; b < sizeof blk / sizeof blk[0]; b++)
    for (int j = 0; blk[b].row >= 0 && j < blk[b].n; j++)
      if (out)
        sdk_em_line(em, "st[%d * npad + p%d] = %s%d_%d;", blk[b].row + blk[b].stride * j, q,
                    blk[b].name, q, j);
      else
        sdk_em_line(em, "real %s%d_%d = st[%d * npad + p%d];", blk[b].name, q, j,
                    blk[b].row + blk[b].stride * j, q);
}

/* The kernel's head: the thread's paths, their values and state. */
static void emit_advance_head(sdk_emit *em, const cu_adv *a) {
  const sdk_codegen_opts *o = a->o;
  const sdk_model *m = o->model;
  int nv = m->nvars;
  sdk_em_puts(em, "\n");
  sdk_em_line(em, "extern \"C\" __global__ void __launch_bounds__(SDK_TPB)");
  if (m->nbound > 0) {
    /* [boundaries]: the backend launches one thread per path still alive,
     * listed by sdk_live_list (L = 1) */
    sdk_em_open(em, "sdk_advance(real *__restrict__ st, sdk_i64 npad, const real *__restrict__ sv, "
                    "sdk_i64 ppg, sdk_i64 ngrid, sdk_i64 path0, sdk_i64 step0, sdk_i64 nsteps, "
                    "sdk_u64 sdk_seed, const unsigned *__restrict__ sdk_live, sdk_i64 sdk_nlive)");
    sdk_cg_row_layout rows;
    sdk_cg_rows(o, &rows);
    sdk_em_text(em, "sdk_i64 base = (sdk_i64)blockIdx.x * (SDK_TPB * SDK_ILP) + threadIdx.x;\n"
                    "if (sdk_live) base = base < sdk_nlive ? (sdk_i64)sdk_live[base] : npad;\n");
    /* the warp's lanes with a live path: the vote at each group's end names
     * them (a lane that has returned cannot vote) */
    if (rows.dtc_bound >= 0) /* --dt-check: or its coarse copy is */
      sdk_em_line(em,
                  "const int sdk_on = base < npad && nsteps > 0 && (st[%d * npad + base] == "
                  "(real)0 || st[%d * npad + base] == (real)0);",
                  rows.bound, rows.dtc_bound);
    else
      sdk_em_line(
          em, "const int sdk_on = base < npad && nsteps > 0 && st[%d * npad + base] == (real)0;",
          rows.bound);
    sdk_em_text(em, "const unsigned sdk_wm = __ballot_sync(0xffffffffu, sdk_on);\n"
                    "if (!sdk_on) return;\n"
                    "(void)sv; (void)sdk_seed; (void)sdk_wm;\n");
  } else {
    sdk_em_open(em, "sdk_advance(real *__restrict__ st, sdk_i64 npad, const real *__restrict__ sv, "
                    "sdk_i64 ppg, sdk_i64 ngrid, sdk_i64 path0, sdk_i64 step0, sdk_i64 nsteps, "
                    "sdk_u64 sdk_seed)");
    sdk_em_text(em,
                "const sdk_i64 base = (sdk_i64)blockIdx.x * (SDK_TPB * SDK_ILP) + threadIdx.x;\n"
                "if (base >= npad || nsteps <= 0) return;\n"
                "(void)sv; (void)sdk_seed;\n");
  }
  for (int q = 0; q < a->L; q++) {
    sdk_em_line(em, "const sdk_i64 p%d = base + %d * SDK_TPB;", q, q);
    sdk_em_line(em, "const sdk_u64 gp%d = (sdk_u64)(path0 + p%d); (void)gp%d;", q, q, q);
    sdk_em_line(em,
                "sdk_i64 g%d = (path0 + p%d) / ppg; if (g%d >= ngrid) g%d = ngrid - 1; (void)g%d;",
                q, q, q, q, q);
    for (int i = 0; i < m->nparams; i++)
      if (o->scan_column[i] >= 0)
        sdk_em_line(em, "const real sp%d_%d = sv[g%d * SDK_NSV + %d];", q, i, q, o->scan_column[i]);
    if (o->dt_column >= 0)
      sdk_em_line(em, "const real dt%d = sv[g%d * SDK_NSV + %d];", q, q, o->dt_column);
    for (int v = 0; v < nv; v++)
      sdk_em_line(em, "real x%d_%d = st[%d * npad + p%d];", q, v, v, q);
    for (int v = 0; o->compensate && v < nv; v++)
      sdk_em_line(em, "real c%d_%d = st[%d * npad + p%d];", q, v, nv + v, q);
    for (int v = 0; a->defer && v < nv; v++)
      sdk_em_line(em, "real h%d_%d = st[%d * npad + p%d];", q, v, 2 * nv + v, q);
    for (int j = 0; o->tavg && j < m->nobs + nv; j++)
      sdk_em_line(em,
                  "real as%d_%d = st[(SDK_TAVG_ROW + %d) * npad + p%d], "
                  "ae%d_%d = st[(SDK_TAVG_ROW + %d) * npad + p%d];",
                  q, j, 2 * j, q, q, j, 2 * j + 1, q);
    if (m->nbound > 0) {
      /* the boundary rows (codegen.h); an absorbed path is frozen: nothing to do */
      sdk_cg_row_layout rows;
      sdk_cg_rows(o, &rows);
      sdk_em_line(em, "real bs%d = st[%d * npad + p%d];", q, rows.bound, q);
      sdk_em_line(em, "real bl%d = st[%d * npad + p%d];", q, rows.bound + 1, q);
      sdk_em_line(em, "real bh%d = st[%d * npad + p%d];", q, rows.bound + 2, q);
    }
    emit_coarse_io(em, a, q, 0);
  }
  sdk_em_line(em, "sdk_i64 n = step0;");
  sdk_em_line(em, "const sdk_i64 nend = step0 + nsteps;");
  if (o->spp > 0) {
    const char *pht = o->spp <= INT_MAX ? "int" : "sdk_i64";
    sdk_em_line(em, "%s sdk_ph = (%s)(step0 %% %lldLL);", pht, pht, (long long)o->spp);
  }
}

/* The noise values of path q for step r of the pass: from the group's
 * blocks (pass 1) or drawn directly. */
static void emit_noise(sdk_emit *em, const cu_adv *a, int q, int r) {
  const sdk_noise_type *nz = sdk_cg_noise(a->o);
  for (int j = 0; j < a->o->model->nnoise; j++) {
    if (a->pass == 1) {
      int k = r * a->o->model->nnoise + j;
      sdk_em_line(em, "const real z%d_%d = r%d_%d[%d];", q, j, q, k >> 2, k & 3);
      continue;
    }
    char path[32];
    snprintf(path, sizeof path, "gp%d", q);
    sdk_em_line(em, "real z%d_%d;", q, j);
    sdk_em_block(em);
    sdk_em_line(em, "const sdk_i64 k = n * SDK_NN + %d;", j);
    sdk_em_line(em, "real r[%d];", nz->values_per_block);
    sdk_noise_block(em, nz, "sdk_seed", path, "(sdk_u64)(k >> 2)", 0, "r");
    sdk_em_line(em, "const int l = (int)(k & 3);");
    sdk_em_line(em, "z%d_%d = l == 0 ? r[0] : l == 1 ? r[1] : l == 2 ? r[2] : r[3];", q, j);
    sdk_em_close(em);
  }
}

/* "sdk_step(...)" of path q at step r of the pass */
static void emit_step_call(sdk_emit *em, const cu_adv *a, int q, int r) {
  const sdk_codegen_opts *o = a->o;
  const sdk_model *m = o->model;
  /* time of the step (per path only when dt varies): the step index, and
   * with a period the phase index */
  char tph[64], tstep[64];
  const char *tphase = a->grouptab ? tph : "(real)sdk_ph";
  snprintf(tph, sizeof tph, "(real)(sdk_ph + %d)", r);
  if (a->pass == 1)
    snprintf(tstep, sizeof tstep, "(double)(sdk_n + %d)", r);
  else
    snprintf(tstep, sizeof tstep, "(double)n");
  sdk_em_start(em, "sdk_step(");
  for (int v = 0; v < m->nvars; v++)
    sdk_em_printf(em, "%sx%d_%d", v ? ", " : "", q, v);
  for (int v = 0; o->compensate && v < m->nvars; v++)
    sdk_em_printf(em, ", c%d_%d", q, v);
  for (int v = 0; a->defer && v < m->nvars; v++)
    sdk_em_printf(em, ", h%d_%d", q, v);
  if (m->nbound > 0) sdk_em_printf(em, ", bs%d, bl%d, bh%d", q, q, q);
  if (m->nbound > 0 || sdk_cg_has_events(m)) { /* the step's index: the hitting step is one more */
    if (a->pass == 1)
      sdk_em_printf(em, ", sdk_n + %d, sdk_seed, gp%d", r, q);
    else
      sdk_em_printf(em, ", n, sdk_seed, gp%d", q);
  }
  for (int i = 0; i < m->nparams; i++)
    if (o->scan_column[i] >= 0) sdk_em_printf(em, ", sp%d_%d", q, i);
  if (o->dt_column >= 0) {
    sdk_em_printf(em, ", dt%d, (real)(%s * (double)dt%d)", q, tstep, q);
    if (o->spp > 0) sdk_em_printf(em, ", %s * dt%d", tphase, q);
  } else {
    sdk_em_printf(em, ", (real)(%s * ", tstep);
    sdk_em_double(em, o->dt);
    sdk_em_puts(em, ")");
    if (o->spp > 0) {
      sdk_em_printf(em, ", %s * ", tphase);
      sdk_em_number(em, o->dt);
    }
  }
  for (int sl = 0; sl < a->nslot; sl++)
    sdk_em_printf(em, ", T%d", sl);
  for (int j = 0; j < m->nnoise; j++)
    sdk_em_printf(em, ", z%d_%d", q, j);
  sdk_em_puts(em, ");\n");
}

/* Step r of a pass: its time-only values, each path's noise and step, and
 * at a group end the renormalisation of deferred compensation. */
static void emit_rep(sdk_emit *em, const cu_adv *a, int r) {
  const sdk_codegen_opts *o = a->o;
  sdk_em_block(em);
  for (int sl = 0; sl < a->nslot; sl++) {
    int idx = r * a->nslot + sl;
    if (a->vecload)
      sdk_em_line(em, "const real T%d = sdk_tv%d.%c;", sl, idx / a->per_vec,
                  "xyzw"[idx % a->per_vec]);
    else if (a->grouptab)
      sdk_em_line(em, "const real T%d = sdk_tt[%d];", sl, idx);
    else
      sdk_em_line(em, "const real T%d = sdk_ttab[sdk_ph * SDK_TT_SLOTS + %d];", sl, sl);
  }
  /* [boundaries]: an absorbed path (L = 1) is frozen from its hitting step
   * on.  The step is skipped, not left: an exit from the unrolled loop that
   * only some lanes take costs sdk_advance a third of its registers (80
   * instead of 48 for josephson with two boundaries), and with them the
   * occupancy; whole warps leave at a group's end by a vote (emit_pass). */
  int guard = o->model->nbound > 0;
  for (int q = 0; q < a->L; q++) {
    emit_noise(em, a, q, r);
    if (guard) sdk_em_open(em, "if (bs%d == (real)0)", q);
    emit_step_call(em, a, q, r);
    emit_tavg_call(em, a, q, r);
    /* (--dt-check: the coarse copy goes on after the fine one is absorbed,
     * under its own status) */
    if (guard && o->dt_check) sdk_em_close(em);
    emit_coarse_call(em, a, q, r);
    if (guard && !o->dt_check) sdk_em_close(em);
  }
  if (a->pass != 1) sdk_em_line(em, "n++;");
  /* deferred compensation: Fast2Sum of h + l at every group end (codegen.h);
   * not for a frozen path, whose state stays that of its hitting step */
  if (a->defer && (a->pass != 1 || r == a->G - 1)) {
    if (a->pass != 1) sdk_em_line(em, "if (n %% %d == 0) {", a->G);
    em->depth++; /* (in pass 1 too, where no brace opens) */
    for (int q = 0; q < a->L; q++) {
      if (guard) sdk_em_open(em, "if (bs%d == (real)0)", q);
      for (int v = 0; v < o->model->nvars; v++)
        sdk_em_line(em, "c%d_%d = c%d_%d - (x%d_%d - h%d_%d); h%d_%d = x%d_%d;", q, v, q, v, q, v,
                    q, v, q, v, q, v);
      if (guard) sdk_em_close(em);
    }
    em->depth--;
    if (a->pass != 1) sdk_em_line(em, "}");
  }
  if (o->spp > 0 && !a->grouptab)
    sdk_em_line(em, "if (++sdk_ph == %lldLL) sdk_ph = 0;", (long long)o->spp);
  sdk_em_close(em);
}

/* Pass 0: the steps up to a group boundary; 1: whole groups; 2: the tail. */
static void emit_pass(sdk_emit *em, cu_adv *a, int pass) {
  const sdk_codegen_opts *o = a->o;
  int G = a->G;
  a->pass = pass;
  /* with spp a multiple of G, a group never wraps the period: one table
   * pointer per group; 16-byte loads when its values fill whole vectors */
  a->grouptab = pass == 1 && a->nslot > 0 && o->spp % G == 0;
  a->per_vec = o->single ? 4 : 2;
  a->vecload = a->grouptab && (G * a->nslot) % a->per_vec == 0;
  if (pass == 0) {
    sdk_em_open(em, "while (n < nend && (n %% %d) != 0)", G);
  } else if (pass == 1) {
    /* whole groups with a 32-bit count and the Philox counter as base +
     * offset: the 64-bit step arithmetic stays out of the loop, and the
     * unrolled body amortises the loop control and the table pointer
     * (38.9 instead of 41.3 SASS instructions per josephson SRK2 step) */
    sdk_em_open(em, "while (nend - n >= %d)", G);
    sdk_em_printf(em,
                  "   const sdk_i64 sdk_left = (nend - n) / %d;\n"
                  "   const int sdk_ng = sdk_left > (1 << 30) ? (1 << 30) : (int)sdk_left;\n"
                  "   const sdk_u64 sdk_c0 = (sdk_u64)((n * SDK_NN) >> 2);\n"
                  "   (void)sdk_c0;\n"
                  "   #pragma unroll %d\n"
                  "   for (int sdk_gi = 0; sdk_gi < sdk_ng; sdk_gi++) {\n",
                  G, o->single ? 4 : 2);
    /* (the loop's body stays at the level of the while's) */
    sdk_em_line(em, "const sdk_i64 sdk_n = n + (sdk_i64)sdk_gi * %d; (void)sdk_n;", G);
  } else {
    sdk_em_open(em, "while (n < nend)");
  }
  if (a->grouptab) sdk_em_line(em, "const real *sdk_tt = sdk_ttab + sdk_ph * SDK_TT_SLOTS;");
  const char *vt = o->single ? "float4" : "double2";
  for (int qv = 0; a->vecload && qv < G * a->nslot / a->per_vec; qv++)
    sdk_em_line(em, "const %s sdk_tv%d = ((const %s *)sdk_tt)[%d];", vt, qv, vt, qv);
  const sdk_noise_type *nz = sdk_cg_noise(o);
  for (int q = 0; pass == 1 && q < a->L; q++)
    for (int k = 0; k < a->nblk_group; k++) {
      char path[32], block[96], dst[32];
      snprintf(path, sizeof path, "gp%d", q);
      snprintf(block, sizeof block, "sdk_c0 + (sdk_u64)sdk_gi * %d + %d", a->nblk_group, k);
      snprintf(dst, sizeof dst, "r%d_%d", q, k);
      sdk_em_line(em, "real %s[%d];", dst, nz->values_per_block);
      sdk_noise_block(em, nz, "sdk_seed", path, block, 0, dst);
    }
  for (int r = 0; r < (pass == 1 ? G : 1); r++)
    emit_rep(em, a, r);
  if (a->grouptab) {
    sdk_em_line(em, "sdk_ph += %d;", G);
    sdk_em_line(em, "if (sdk_ph == %lldLL) sdk_ph = 0;", (long long)o->spp);
  }
  /* a warp whose paths are all absorbed leaves (a uniform branch: no cost
   * in registers, unlike a lane's own exit) */
  if (pass == 1 && o->model->nbound > 0)
    for (int q = 0; q < a->L; q++) {
      if (o->dt_check)
        sdk_em_line(
            em, "if (__all_sync(sdk_wm, bs%d != (real)0 && cb%d_0 != (real)0)) goto sdk_frozen;", q,
            q);
      else
        sdk_em_line(em, "if (__all_sync(sdk_wm, bs%d != (real)0)) goto sdk_frozen;", q);
    }
  if (pass == 1) sdk_em_printf(em, "   }\n   n += (sdk_i64)sdk_ng * %d;\n", G);
  sdk_em_close(em);
}

/* [boundaries]: the list of the paths still alive (status row 0), for the
 * backend to launch sdk_advance over them alone: absorbed paths scattered
 * over the warps would otherwise keep every warp busy.  One atomic per warp;
 * the list's order (which warps come first) varies from run to run, the
 * results do not (a path's steps depend on its index alone).  npad is a
 * multiple of SDK_TPB and below 2^32 (the backend checks). */
static void emit_live_list(sdk_emit *em, const sdk_codegen_opts *o) {
  sdk_cg_row_layout rows;
  sdk_cg_rows(o, &rows);
  sdk_em_puts(em, "\n");
  sdk_em_line(em, "extern \"C\" __global__ void __launch_bounds__(SDK_TPB)");
  sdk_em_open(em, "sdk_live_list(const real *__restrict__ st, sdk_i64 npad, "
                  "unsigned *__restrict__ live, unsigned long long *__restrict__ nlive)");
  sdk_em_line(em, "const sdk_i64 p = (sdk_i64)blockIdx.x * SDK_TPB + threadIdx.x;");
  if (rows.dtc_bound >= 0) /* --dt-check: or its coarse copy */
    sdk_em_line(em,
                "const int alive = p < npad && (st[%d * npad + p] == (real)0 || st[%d * npad + p] "
                "== (real)0);",
                rows.bound, rows.dtc_bound);
  else
    sdk_em_line(em, "const int alive = p < npad && st[%d * npad + p] == (real)0;", rows.bound);
  sdk_em_text(em,
              "const unsigned mask = __ballot_sync(0xffffffffu, alive);\n"
              "const int lane = threadIdx.x & 31;\n"
              "unsigned long long at = 0;\n"
              "if (lane == 0 && mask) at = atomicAdd(nlive, (unsigned long long)__popc(mask));\n"
              "at = __shfl_sync(0xffffffffu, at, 0);\n"
              "if (alive) live[at + __popc(mask & ((1u << lane) - 1u))] = (unsigned)p;\n");
  sdk_em_close(em);
}

void sdk_cg_cuda_paths(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  int nn = m->nnoise;
  cu_adv a = {.o = o};
  a.G = nn > 0 ? 4 / gcd4(nn) : 1;
  a.nblk_group = nn > 0 ? a.G * nn / 4 : 0;
  a.defer = o->compensate && o->comp_defer;
  /* Each thread advances L paths (p and p + SDK_TPB, ...): their steps are
   * independent, so interleaving them gives the scheduler instructions to
   * issue while one path waits on a special-function result.  L = 2
   * measured no faster on the H100 (6.24e11 vs 6.27e11 steps/s,
   * docs/BENCHMARKS.md): the kernel is bound by issue and the MUFU pipe,
   * not by latency; keep one path per thread and fewer registers. */
  a.L = 1;
  /* time-only subexpressions from a per-phase table (periodic models) */
  sdk_cg_hoist h;
  sdk_cg_hoist_init(&h, o, o->spp > 0 && o->spp <= SDK_CUDA_MAX_TTAB && o->dt_column < 0);
  h.phase_only = 1; /* the table is indexed by the phase */
  sdk_strbuf step;
  sdk_sb_init(&step);
  sdk_emit se = sdk_em_child(em, &step); /* (the size cap) */
  se.depth = 3;
  sdk_cg_bound_pre(&se, o, 0);
  o->scheme->emit_step(&se, o, h.enabled ? &h : NULL);
  sdk_cg_events(&se, o, "sdk_nstep", "sdk_gpath", "sdk_seed");
  sdk_cg_bound_post(&se, o, "sdk_nstep", "sdk_gpath", "sdk_seed", 0);
  for (int i = 0; i < SDK_MAX_STAGES; i++)
    for (int k = 0; k < h.n; k++)
      if (h.used[i] & (1u << k)) a.slot_stage[a.nslot] = i, a.slot_k[a.nslot++] = k;
  if (a.nslot > 0) emit_ttab(em, &a, &h);
  sdk_em_puts(em, "\n");
  if (m->nbound > 0) emit_live_list(em, o);
  sdk_em_line(em, "#define SDK_ILP %d", a.L);
  sdk_em_line(em, "extern \"C\" __device__ const int sdk_paths_per_thread = %d;", a.L);
  emit_step_fn(em, &a, &step, "sdk_step");
  sdk_sb_free(&step);
  if (o->dt_check) {
    /* the coarse path's step (codegen.h): dt := 2 dt, no hoisting, a Kahan
     * sum every step where compensated (its rows keep no high parts) */
    sdk_codegen_opts oc = *o;
    oc.dt = 2 * o->dt;
    oc.comp_defer = 0;
    oc.coarse = 1; /* (its bridge draws: boundary.c) */
    cu_adv ac = {.o = &oc, .G = a.G, .L = a.L};
    sdk_strbuf cstep;
    sdk_sb_init(&cstep);
    sdk_emit ce = sdk_em_child(em, &cstep);
    ce.depth = 3;
    sdk_cg_bound_pre(&ce, &oc, 0);
    o->scheme->emit_step(&ce, &oc, NULL);
    sdk_cg_bound_post(&ce, &oc, "sdk_nstep", "sdk_gpath", "sdk_seed", 0);
    emit_step_fn(em, &ac, &cstep, "sdk_step_c");
    sdk_sb_free(&cstep);
  }
  emit_tavg_fn(em, &a);
  emit_advance_head(em, &a);
  for (int pass = 0; pass < 3; pass++)
    emit_pass(em, &a, pass);
  if (m->nbound > 0) {
    sdk_cg_row_layout rows;
    sdk_cg_rows(o, &rows);
    sdk_em_line(em, "sdk_frozen:");
    for (int q = 0; q < a.L; q++)
      sdk_em_line(em,
                  "st[%d * npad + p%d] = bs%d; st[%d * npad + p%d] = bl%d; "
                  "st[%d * npad + p%d] = bh%d;",
                  rows.bound, q, q, rows.bound + 1, q, q, rows.bound + 2, q, q);
  }
  for (int q = 0; q < a.L; q++)
    for (int v = 0; v < m->nvars; v++)
      sdk_em_line(em, "st[%d * npad + p%d] = x%d_%d;", v, q, q, v);
  for (int q = 0; o->compensate && q < a.L; q++)
    for (int v = 0; v < m->nvars; v++)
      sdk_em_line(em, "st[%d * npad + p%d] = c%d_%d;", m->nvars + v, q, q, v);
  for (int q = 0; a.defer && q < a.L; q++)
    for (int v = 0; v < m->nvars; v++)
      sdk_em_line(em, "st[%d * npad + p%d] = h%d_%d;", 2 * m->nvars + v, q, q, v);
  for (int q = 0; o->tavg && q < a.L; q++)
    for (int j = 0; j < m->nobs + m->nvars; j++)
      sdk_em_line(em,
                  "st[(SDK_TAVG_ROW + %d) * npad + p%d] = as%d_%d; "
                  "st[(SDK_TAVG_ROW + %d) * npad + p%d] = ae%d_%d;",
                  2 * j, q, q, j, 2 * j + 1, q, q, j);
  for (int q = 0; q < a.L; q++)
    emit_coarse_io(em, &a, q, 1);
  sdk_em_close(em);
}
