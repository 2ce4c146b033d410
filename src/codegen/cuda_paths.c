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

#include "codegen/acf.h"
#include "codegen/adaptive.h"
#include "codegen/boundary.h"
#include "codegen/codegen.h"
#include "codegen/colored_levy.h"
#include "codegen/common.h"
#include "codegen/comp_vars.h"
#include "codegen/delay.h"
#include "codegen/drivers.h"
#include "codegen/events.h"
#include "codegen/expr_emit.h"
#include "codegen/psd.h"
#include "codegen/resets.h"

extern const char sdk_embedded_init_cuh[], sdk_embedded_ttab_cuh[], sdk_embedded_live_list_cuh[],
    sdk_embedded_advance_cuh[], sdk_embedded_advance_live_cuh[], sdk_embedded_path_cuh[];

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
  if (sdk_cg_delay_quads(o)) /* (the rings' rows as quads: abi.h, sdk_quad_at) */
    sdk_em_line(em, "extern \"C\" __device__ const int sdk_ring_quads[2] = {%d, %d};", rows.dly,
                rows.dly + (int)sdk_cg_delay_rows(o));

  /* init: one thread per path */
  sdk_em_puts(em, "\n");
  sdk_cg_init_kernel(em, o, sdk_embedded_init_cuh, o->compensate && o->comp_defer);
}

/* The values a path carries in registers through sdk_advance, in the order
 * the kernel loads them: the one table behind their loads, their stores and
 * the functions they are passed to by reference (the "0" of their names,
 * x0_1, bs0, is the kernel's; one path per thread: path.cuh). */
/* where a value appears besides its load and store */
enum {
  U_STEP = 1,      /* argument of sdk_step (and parameter of the step functions) */
  U_STEP_C = 2,    /* argument of sdk_step_c */
  U_TAVG = 4,      /* state argument of sdk_tavg */
  U_TAVG_C = 8,    /* ... of the coarse path's sdk_tavg */
  U_ACC = 16,      /* accumulator arguments of sdk_tavg */
  U_ACC_C = 32,    /* ... of the coarse path's */
  U_PAIR = 64,     /* S of an accumulator, the next entry its E: side by side in calls */
  U_PAIR_IO = 128, /* ... and in one declaration and its store */
  U_FROZEN = 256,  /* stored first, at sdk_frozen */
  U_HI = 512,      /* a high part: const in sdk_step unless the step moves it */
  U_RO = 1024      /* read-only: loaded, never stored (passed by value as a parameter) */
};
typedef struct {
  const char *name;  /* NAME0_j, j < the block's rows (NAME0 with one) */
  int block, skip;   /* row: the block's first + skip + stride * j */
  int stride, one;   /* one: a single row */
  int use;           /* U_* */
  const char *param; /* U_STEP: the step function's parameter */
} path_value;
static const path_value path_values[] = {
    {"x", SDK_CG_B_VARS, 0, 1, 0, U_STEP | U_TAVG, "sdk_x%d"},
    {"c", SDK_CG_B_COMP, 0, 1, 0, U_STEP, "sdk_c%d"},
    {"h", SDK_CG_B_HIGH, 0, 1, 0, U_STEP | U_HI, "sdk_hi%d"},
    {"as", SDK_CG_B_TAVG, 0, 2, 0, U_ACC | U_PAIR | U_PAIR_IO, NULL},
    {"ae", SDK_CG_B_TAVG, 1, 2, 0, U_ACC, NULL},
    {"bs", SDK_CG_B_BOUND, 0, 1, 1, U_STEP | U_FROZEN, "sdk_bs"},
    {"bl", SDK_CG_B_BOUND, 1, 1, 1, U_STEP | U_FROZEN, "sdk_bl"},
    {"bh", SDK_CG_B_BOUND, 2, 1, 1, U_STEP | U_FROZEN, "sdk_bh"},
    /* --dt-check: the coupled coarse path (codegen.h) */
    {"xc", SDK_CG_B_DTC, 0, 1, 0, U_STEP_C | U_TAVG_C, NULL},
    {"cc", SDK_CG_B_DTC_COMP, 0, 1, 0, U_STEP_C, NULL},
    {"zh", SDK_CG_B_DTC_Z, 0, 1, 0, 0, NULL},
    {"d0", SDK_CG_B_DTC_D0, 0, 1, 0, 0, NULL},
    {"acs", SDK_CG_B_DTC_TAVG, 0, 2, 0, U_ACC_C | U_PAIR, NULL},
    {"aces", SDK_CG_B_DTC_TAVG, 1, 2, 0, U_ACC_C, NULL},
    {"cb", SDK_CG_B_DTC_BOUND, 0, 1, 0, U_STEP_C, NULL},
    /* the [particle] parameters of the path (codegen.h), drawn by sdk_init */
    {"pp", SDK_CG_B_PPAR, 0, 1, 0, U_RO, NULL},
    /* --adaptive: the step controller's rows (codegen/adaptive.c) */
    {"ad", SDK_CG_B_ADAPT, 0, 1, 0, U_STEP, "sdk_ad%d"},
};
#define NPV (int)(sizeof path_values / sizeof path_values[0])

/* The first row of a value's block (SDK_CG_B_*) and its number of values (0: absent). */
static int pv_rows(const sdk_cg_row_layout *l, const sdk_model *m, const path_value *e, int *n) {
  int first = sdk_cg_block(l, m->nnoise, e->block, n);
  if (e->one && *n > 0) *n = 1;
  return first;
}

/* value j of e: its name, and the element of the state it lives in */
static void pv_name(char *buf, size_t len, const path_value *e, int j) {
  if (e->one)
    snprintf(buf, len, "%s0", e->name);
  else
    snprintf(buf, len, "%s0_%d", e->name, j);
}
static void pv_elem(char *buf, size_t len, const path_value *e, int first, int j) {
  int k = e->skip + e->stride * j;
  if (e->block == SDK_CG_B_TAVG) /* (rows named by the prelude's macro) */
    snprintf(buf, len, "st[(SDK_TAVG_ROW + %d) * npad + p0]", k);
  else
    snprintf(buf, len, "st[%d * npad + p0]", first + k);
}

/* Each value of the table in its row (out = 0: declared and loaded), or
 * back out; `frozen`: only those stored at sdk_frozen, else the others. */
static void emit_values_io(sdk_emit *em, const sdk_codegen_opts *o, int out, int frozen) {
  sdk_cg_row_layout l;
  sdk_cg_rows(o, &l);
  for (int i = 0; i < NPV; i++) {
    const path_value *e = &path_values[i], *e2 = e->use & U_PAIR_IO ? e + 1 : NULL;
    int n, first = pv_rows(&l, o->model, e, &n);
    if (out && (frozen != !!(e->use & U_FROZEN) || (e->use & U_RO))) continue;
    for (int j = 0; j < n; j++) {
      char a[32], ra[64], b[32], rb[64];
      pv_name(a, sizeof a, e, j);
      pv_elem(ra, sizeof ra, e, first, j);
      if (e2) pv_name(b, sizeof b, e2, j), pv_elem(rb, sizeof rb, e2, first, j);
      if (out && e2)
        sdk_em_line(em, "%s = %s; %s = %s;", ra, a, rb, b);
      else if (out)
        sdk_em_line(em, "%s = %s;", ra, a);
      else if (e2)
        sdk_em_line(em, "real %s = %s, %s = %s;", a, ra, b, rb);
      else
        sdk_em_line(em, "%sreal %s = %s;", e->use & U_RO ? "const " : "", a, ra);
    }
    if (e2) i++;
  }
}

/* The values with use bit `use` as arguments of a call, each after ", "
 * but the first when `lead` is 0; an accumulator pair side by side. */
static void emit_value_refs(sdk_emit *em, const sdk_codegen_opts *o, int use, int lead) {
  sdk_cg_row_layout l;
  sdk_cg_rows(o, &l);
  for (int i = 0; i < NPV; i++) {
    const path_value *e = &path_values[i], *e2 = e->use & U_PAIR ? e + 1 : NULL;
    int n;
    pv_rows(&l, o->model, e, &n);
    if (!(e->use & use)) continue;
    for (int j = 0; j < n; j++) {
      char a[32];
      pv_name(a, sizeof a, e, j);
      sdk_em_printf(em, "%s%s", lead++ ? ", " : "", a);
      if (e2) pv_name(a, sizeof a, e2, j), sdk_em_printf(em, ", %s", a);
    }
    if (e2) i++;
  }
}

/* What the parts of sdk_advance share: the context of the hooks of the
 * kernel files (advance*.cuh, ttab.cuh, live_list.cuh). */
typedef struct {
  const sdk_codegen_opts *o;
  const sdk_cg_hoist *h; /* the time-only values hoisted into the table (NULL: none) */
  int G;                 /* steps per group */
  int nblk_group;        /* Philox blocks per group */
  /* the seed's key schedule the steps draw under (sdk_philox_keys_of), or
   * NULL: sdk_seed itself.  Single precision only: there the keys sit in
   * uniform registers and the PROG1 step loses 1.56 of 42.56 instructions;
   * the double step's calls (slow paths of sin, log) move them around it
   * (119.25 -> 124.06 instructions a step; NVRTC 13.0, sm_90). */
  const char *keys;
  int defer; /* deferred compensation: renormalise where n % R == 0 (codegen.h) */
  /* steps between renormalisations: 4 G (the unrolled loop's iteration),
   * or G with delays or Levy pairs (sdk_cg_cuda_paths) */
  int R;
  /* within whole groups (pass 1), with R > G: the groups up to n % R == 0
   * (ALIGN), whole runs of R steps (MAIN; the renormalisation placed in the
   * unrolled body), the groups left (TAIL; they never reach n % R == 0) */
  enum { SDK_GM_MAIN, SDK_GM_ALIGN, SDK_GM_TAIL } gmode;
  /* the time-only values the step takes, from the per-phase table */
  int nslot, slot_stage[SDK_MAX_STAGES * SDK_CG_MAX_HOIST],
      slot_k[SDK_MAX_STAGES * SDK_CG_MAX_HOIST];
  /* within a pass of the steps (see emit_pass) */
  int pass, grouptab, vecload, per_vec;
  /* the table of --adaptive's whole steps (adaptive.c): the phase time as
   * the step's, a product never contracted into the stage time's sum */
  int adaptive_tab;
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

/* ttab.cuh's hook values: the table's row at phase ph */
static void hook_ttab_values(sdk_emit *em, const void *c) {
  const cu_adv *a = c;
  const sdk_codegen_opts *o = a->o;
  sdk_cg_fixed_params(em, o);
  sdk_em_start(em, "const real sdk_dt = ");
  sdk_em_number(em, o->dt);
  sdk_em_puts(em, ";\n");
  /* (no absolute time here: a tabulated value depends on the phase only) */
  if (a->adaptive_tab)
    sdk_em_line(em, "const real sdk_tp0 = %s((real)ph, sdk_dt);",
                o->single ? "__fmul_rn" : "__dmul_rn");
  else
    sdk_em_line(em, "const real sdk_tp0 = (real)ph * sdk_dt;");
  sdk_cg_hoist_decls(em, o, a->h);
  for (int sl = 0; sl < a->nslot; sl++)
    sdk_em_line(em, "sdk_ttab[ph * SDK_TT_SLOTS + %d] = sdk_T%d_%d;", sl, a->slot_stage[sl],
                a->slot_k[sl]);
}

/* The table of the time-only values at every phase of the period and stage
 * time, filled once per module. */
static void emit_ttab(sdk_emit *em, const cu_adv *a) {
  static const sdk_em_hook hooks[] = {{"values", hook_ttab_values}};
  sdk_em_puts(em, "\n");
  sdk_em_line(em, "#define SDK_TT_SLOTS %d", a->nslot);
  sdk_em_line(em, "#define SDK_TT_PHASES %lld", (long long)a->o->spp);
  sdk_em_kernel_hooks(em, sdk_embedded_ttab_cuh, hooks, 1, a);
}

/* The per-grid-point values a device function of one path takes as
 * arguments: ", const real NAME" for every scanned parameter, then the step
 * when it varies with the grid point, then the path's per-path parameters
 * (codegen.h: [particle] ones that are not constants, those given as data). */
static void emit_value_args(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  for (int i = 0; i < m->nparams; i++)
    if (o->scan_column[i] >= 0) {
      sdk_em_puts(em, ", const real ");
      sdk_em_name(em, m->params[i]);
    }
  if (o->dt_column >= 0) sdk_em_puts(em, ", const real sdk_dt");
  for (int k = 0; k < m->npart; k++)
    if (sdk_cg_ppar_row(o, 1, k) >= 0) {
      sdk_em_puts(em, ", const real ");
      sdk_em_name(em, m->part[k].name);
    }
  for (int i = 0; i < m->nparams; i++)
    if (sdk_cg_ppar_row(o, 0, i) >= 0) {
      sdk_em_puts(em, ", const real ");
      sdk_em_name(em, m->params[i]);
    }
}

/* ... and the path's values passed to one: ", sp0_I", ", DT" (the step
 * it takes: dt0 or 2 dt0) and ", pp0_J". */
static void emit_value_pass(sdk_emit *em, const sdk_codegen_opts *o, const char *dt) {
  for (int i = 0; i < o->model->nparams; i++)
    if (o->scan_column[i] >= 0) sdk_em_printf(em, ", sp0_%d", i);
  if (o->dt_column >= 0) sdk_em_printf(em, ", %s", dt);
  for (int k = 0; k < o->model->npart; k++) {
    int j = sdk_cg_ppar_row(o, 1, k);
    if (j >= 0) sdk_em_printf(em, ", pp0_%d", j);
  }
  for (int i = 0; i < o->model->nparams; i++) {
    int j = sdk_cg_ppar_row(o, 0, i);
    if (j >= 0) sdk_em_printf(em, ", pp0_%d", j);
  }
}

/* ... and the head of its body: the fixed parameters as constants, the
 * scanned ones marked used, the [particle] ones, a constant step. */
static void emit_value_head(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  sdk_cg_fixed_params(em, o);
  sdk_cg_ppar_bind(em, o, NULL);
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

/* The step as a function `name` of one path's state and values (`step`: its
 * body): the values of the table it changes (U_STEP) by reference. */
static void emit_step_fn(sdk_emit *em, const cu_adv *a, const sdk_strbuf *step, const char *name) {
  const sdk_codegen_opts *o = a->o;
  const sdk_model *m = o->model;
  sdk_em_puts(em, "\n");
  sdk_em_start(em, "static __device__ __forceinline__ void %s(", name);
  int bound = m->nbound > 0, ev = sdk_cg_has_events(m), lead = 0;
  sdk_cg_row_layout l;
  sdk_cg_rows(o, &l);
  for (int i = 0; i < NPV; i++) {
    const path_value *e = &path_values[i];
    int n;
    pv_rows(&l, m, e, &n);
    for (int j = 0; (e->use & U_STEP) && j < n; j++) {
      /* (a reflection or a dichotomous switch moves the high part) */
      int in = (e->use & U_HI) && !bound && !ev;
      sdk_em_printf(em, "%s%s", lead++ ? ", " : "", in ? "const real " : "real &");
      sdk_em_printf(em, e->param, j);
    }
  }
  if (bound || ev || o->adaptive || m->ndelay > 0)
    sdk_em_puts(em, ", const sdk_i64 sdk_nstep, const sdk_u64 sdk_seed, const sdk_u64 sdk_gpath");
  if (sdk_cg_adaptive_slices(o)) sdk_em_puts(em, ", const sdk_i64 sdk_nend");
  if (m->nevent > 0 && !o->coarse) /* the path's [events] rows (resets.h) */
    sdk_em_puts(em, ", real *const sdk_er, const sdk_i64 sdk_ern");
  sdk_cg_delay_cuda_params(em, o, 1); /* the delayed values (delay.h) */
  emit_value_args(em, o);
  /* the step's absolute time and, with a period, its phase time */
  sdk_em_puts(em, ", const real sdk_t0");
  if (o->spp > 0) sdk_em_puts(em, ", const real sdk_tp0");
  for (int sl = 0; sl < a->nslot; sl++)
    sdk_em_printf(em, ", const real sdk_T%d_%d", a->slot_stage[sl], a->slot_k[sl]);
  for (int j = 0; j < m->nnoise && !o->adaptive; j++) /* (adaptive: the tree's, inside) */
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

/* --observe acf in the kernel (acf.h): the values of its quantities, user
 * observables among them, as a function of one path's state and values,
 * and its call */
static void emit_acf_fn(sdk_emit *em, const cu_adv *a) {
  const sdk_codegen_opts *o = a->o;
  if (o->acf_k <= 0 || !sdk_cg_acf_user(o)) return;
  sdk_em_puts(em, "\n");
  sdk_em_start(em, "static __device__ __forceinline__ void sdk_acf_q(");
  for (int v = 0; v < o->model->nvars; v++)
    sdk_em_printf(em, "%sconst real sdk_x%d", v ? ", " : "", v);
  emit_value_args(em, o);
  sdk_em_puts(em, ", const sdk_i64 sdk_na");
  for (int j = 0; j < o->acf_nq; j++)
    sdk_em_printf(em, ", real &sdk_q%d", j);
  sdk_em_puts(em, ") {\n");
  em->depth++;
  emit_value_head(em, o);
  sdk_cg_acf_values(em, o, "sdk_x%d", "sdk_na", "sdk_q%d");
  sdk_em_close(em);
}

static void acf_call(sdk_emit *em, const void *ctx, const char *n_after) {
  const sdk_codegen_opts *o = ctx;
  sdk_em_start(em, "sdk_acf_q(");
  emit_value_refs(em, o, U_TAVG, 0);
  emit_value_pass(em, o, "dt0");
  sdk_em_printf(em, ", %s", n_after);
  for (int j = 0; j < o->acf_nq; j++)
    sdk_em_printf(em, ", sdk_aq%d", j);
  sdk_em_puts(em, ");\n");
}

/* The step just taken, r steps into the pass, as the kernel names it. */
static void pass_step(const cu_adv *a, int r, char *buf, size_t n) {
  if (a->pass == 1)
    snprintf(buf, n, "(sdk_n + %d)", r);
  else
    snprintf(buf, n, "n");
}

/* "if (FROM >= SDK_TAVG_FROM) sdk_tavg(...)" of the fine (coarse = 0) or
 * the coarse path's state after step `step` */
static void emit_tavg_call(sdk_emit *em, const sdk_codegen_opts *o, const char *step, int coarse) {
  if (!o->tavg) return;
  sdk_em_start(em, "if (%s%s >= SDK_TAVG_FROM) sdk_tavg(", step, coarse ? " - 1" : "");
  emit_value_refs(em, o, coarse ? U_TAVG_C : U_TAVG, 0);
  emit_value_pass(em, o, "dt0");
  sdk_em_printf(em, ", %s + 1", step);
  emit_value_refs(em, o, coarse ? U_ACC_C : U_ACC, 1);
  sdk_em_puts(em, ");\n");
}

/* --dt-check: after step STEP, the coupled coarse path (codegen.h): the
 * noise of an even step waits; after an odd one the coarse step sdk_step_c
 * from t_{STEP-1} over 2 dt with the pair's summed noise, its time averages
 * (the coarse state after the pair is state STEP + 1), and at step
 * SDK_DTC_MARK the displacements' origin */
static void emit_coarse_call(sdk_emit *em, const cu_adv *a, int r) {
  const sdk_codegen_opts *o = a->o;
  const sdk_model *m = o->model;
  int nv = m->nvars, nn = m->nnoise;
  if (!o->dt_check) return;
  char st[64];
  pass_step(a, r, st, sizeof st);
  sdk_em_open(em, "if ((%s & 1) == 0)", st);
  for (int j = 0; j < nn; j++)
    sdk_em_line(em, "zh0_%d = z0_%d;", j, j);
  sdk_em_close(em);
  sdk_em_open(em, "else");
  /* [boundaries]: the coarse copy has its own status (boundary.c), frozen
   * when absorbed as the fine one (whose step the caller skips alone) */
  int bound = m->nbound > 0;
  if (bound) sdk_em_open(em, "if (cb0_0 == (real)0)");
  sdk_em_start(em, "sdk_step_c(");
  emit_value_refs(em, o, U_STEP_C, 0);
  if (bound) sdk_em_printf(em, ", %s, sdk_seed, gp0", st);
  emit_value_pass(em, o, "(real)2 * dt0");
  if (o->dt_column >= 0) {
    sdk_em_printf(em, ", (real)((double)(%s - 1) * (double)dt0)", st);
    if (o->spp > 0) sdk_em_printf(em, ", (real)((%s - 1) %% %lldLL) * dt0", st, (long long)o->spp);
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
    sdk_em_printf(em, ", (zh0_%d + z0_%d) * (real)0.70710678118654752", j, j);
  sdk_em_puts(em, ");\n");
  emit_tavg_call(em, o, st, 1);
  if (bound) sdk_em_close(em);
  sdk_em_open(em, "if (%s + 1 == SDK_DTC_MARK)", st);
  for (int v = 0; v < nv; v++)
    sdk_em_line(em, "d00_%d = xc0_%d - x0_%d;", v, v, v);
  sdk_em_close(em);
  sdk_em_close(em);
}

/* path.cuh's hook values: the path's scanned values and its state */
static void hook_values(sdk_emit *em, const void *c) {
  const sdk_codegen_opts *o = ((const cu_adv *)c)->o;
  const sdk_model *m = o->model;
  for (int i = 0; i < m->nparams; i++)
    if (o->scan_column[i] >= 0)
      sdk_em_line(em, "const real sp0_%d = sv[g0 * SDK_NSV + %d];", i, o->scan_column[i]);
  if (o->dt_column >= 0) sdk_em_line(em, "const real dt0 = sv[g0 * SDK_NSV + %d];", o->dt_column);
  emit_values_io(em, o, 0, 0);
  const sdk_cg_acf_call acf = {acf_call, o};
  sdk_cg_acf_cuda_io(em, o, 0, &acf);
  sdk_cg_psd_first(em, o, "step0", "x0_%d", "(st + p0)");
}

/* The noise values of the path for step r of the pass: from the group's
 * blocks (pass 1) or drawn directly. */
static void emit_noise(sdk_emit *em, const cu_adv *a, int r) {
  const sdk_noise_type *nz = sdk_cg_noise(a->o);
  for (int j = 0; j < a->o->model->nnoise && !a->o->adaptive; j++) {
    int l = sdk_cg_levy_channel(a->o->model, j); /* (alpha-stable in place of Gaussian) */
    if (l >= 0) {
      char st[64], z[32], dt[40], ww[32], wv[32];
      pass_step(a, r, st, sizeof st);
      snprintf(z, sizeof z, "z0_%d", j);
      snprintf(dt, sizeof dt, a->o->dt_column >= 0 ? "dt0" : "%.17g", a->o->dt);
      sdk_em_line(em, "real z0_%d;", j);
      if (a->pass == 1 && sdk_cg_levy_pairs(a->o)) { /* (the group's blocks: emit_pass) */
        snprintf(ww, sizeof ww, "lv0_%d_%d[%d]", j, r >> 1, 2 * (r & 1));
        snprintf(wv, sizeof wv, "lv0_%d_%d[%d]", j, r >> 1, 2 * (r & 1) + 1);
        sdk_cg_levy_z_words(em, a->o, l, ww, wv, dt, z);
      } else {
        sdk_cg_levy_z(em, a->o, l, st, "gp0", "sdk_seed", dt, z);
      }
      continue;
    }
    if (a->pass == 1) {
      int k = r * a->o->model->nnoise + j;
      sdk_em_line(em, "const real z0_%d = r0_%d[%d];", j, k >> 2, k & 3);
      continue;
    }
    sdk_em_line(em, "real z0_%d;", j);
    sdk_em_block(em);
    sdk_em_line(em, "const sdk_i64 k = n * SDK_NN + %d;", j);
    sdk_em_line(em, "real r[%d];", nz->values_per_block);
    if (a->keys)
      sdk_noise_block_k(em, nz, a->keys, "gp0", "(sdk_u64)(k >> 2)", 0, "r");
    else
      sdk_noise_block(em, nz, "sdk_seed", "gp0", "(sdk_u64)(k >> 2)", 0, "r");
    sdk_em_line(em, "const int l = (int)(k & 3);");
    sdk_em_line(em, "z0_%d = l == 0 ? r[0] : l == 1 ? r[1] : l == 2 ? r[2] : r[3];", j);
    sdk_em_close(em);
  }
}

/* "sdk_step(...)" of the path at step r of the pass */
static void emit_step_call(sdk_emit *em, const cu_adv *a, int r) {
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
  emit_value_refs(em, o, U_STEP, 0);
  if (m->nbound > 0 || sdk_cg_has_events(m) || o->adaptive || m->ndelay > 0) { /* the step */
    if (a->pass == 1)
      sdk_em_printf(em, ", sdk_n + %d, sdk_seed, gp0", r);
    else
      sdk_em_puts(em, ", n, sdk_seed, gp0");
  }
  if (sdk_cg_adaptive_slices(o)) sdk_em_puts(em, ", nend");
  if (m->nevent > 0) {
    sdk_cg_row_layout l;
    sdk_cg_rows(o, &l);
    sdk_em_printf(em, ", st + (sdk_i64)%d * npad + p0, npad", l.evt);
  }
  sdk_cg_delay_cuda_params(em, o, 0);
  emit_value_pass(em, o, "dt0");
  if (o->dt_column >= 0) {
    sdk_em_printf(em, ", (real)(%s * (double)dt0)", tstep);
    if (o->spp > 0) sdk_em_printf(em, ", %s * dt0", tphase);
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
  for (int j = 0; j < m->nnoise && !o->adaptive; j++)
    sdk_em_printf(em, ", z0_%d", j);
  sdk_em_puts(em, ");\n");
}

/* --adaptive (sdk_cg_adaptive_slices): the launch's steps n .. nend - 1 in
 * one call of sdk_step, whose lanes go on to their next step on their own
 * (kernels/adapt_step.h): pass 2's call with the launch's end */
static void emit_slices_call(sdk_emit *em, cu_adv *a) {
  a->pass = 2;
  sdk_em_open(em, "if (n < nend)");
  emit_step_call(em, a, 0);
  sdk_em_line(em, "n = nend;");
  sdk_em_close(em);
}

/* Whether step r of the pass can end at n % R == 0, and the condition that
 * it does into buf ("": always): a step of passes 0 and 2 by n, a group's
 * last step by its end, in MAIN's unrolled body by sdk_gi & (R/G - 1),
 * known in each copy (its groups start at n % R == 0, sdk_ng a multiple of
 * R/G); TAIL's groups never reach it. */
static int renorm_when(const cu_adv *a, int r, char *buf, size_t n) {
  buf[0] = 0;
  if (a->pass != 1) return snprintf(buf, n, "n %% %d == 0", a->R), 1;
  if (r != a->G - 1 || a->gmode == SDK_GM_TAIL) return 0;
  if (a->gmode == SDK_GM_ALIGN) snprintf(buf, n, "(sdk_n + %d) %% %d == 0", a->G, a->R);
  if (a->gmode == SDK_GM_MAIN && a->R > a->G)
    snprintf(buf, n, "(sdk_gi & %d) == %d", a->R / a->G - 1, a->R / a->G - 1);
  return 1;
}

/* Step r of a pass: its time-only values, the path's noise and step, and
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
  /* [boundaries]: an absorbed path is frozen from its hitting step on.  The
   * step is skipped, not left: an exit from the unrolled loop that only
   * some lanes take costs sdk_advance a third of its registers (80 instead
   * of 48 for josephson with two boundaries), and with them the occupancy;
   * whole warps leave at a group's end by a vote (emit_pass). */
  int guard = o->model->nbound > 0;
  emit_noise(em, a, r);
  if (guard) sdk_em_open(em, "if (bs0 == (real)0)");
  sdk_cg_delay_cuda_step(em, o, a->pass == 1 ? r : -1, a->G);
  emit_step_call(em, a, r);
  sdk_cg_delay_cuda_after(em, o);
  char step[64];
  pass_step(a, r, step, sizeof step);
  emit_tavg_call(em, o, step, 0);
  const sdk_cg_acf_call acf = {acf_call, o};
  sdk_cg_acf_cuda_step(em, o, step, &acf);
  sdk_cg_psd_step(em, o, step, "x0_%d", "(st + p0)");
  /* (--dt-check: the coarse copy goes on after the fine one is absorbed,
   * under its own status) */
  if (guard && o->dt_check) sdk_em_close(em);
  emit_coarse_call(em, a, r);
  if (guard && !o->dt_check) sdk_em_close(em);
  if (a->pass != 1) sdk_em_line(em, "n++;");
  /* deferred compensation: Fast2Sum of h + l where n % R == 0 (codegen.h);
   * not for a frozen path, whose state stays that of its hitting step */
  char when[64];
  if (a->defer && renorm_when(a, r, when, sizeof when)) {
    if (when[0]) sdk_em_open(em, "if (%s)", when);
    if (guard) sdk_em_open(em, "if (bs0 == (real)0)");
    for (int v = 0; v < o->model->nvars; v++)
      if (sdk_cg_comp_var(o, v))
        sdk_em_line(em, "c0_%d = c0_%d - (x0_%d - h0_%d); h0_%d = x0_%d;", v, v, v, v, v, v);
    if (guard) sdk_em_close(em);
    if (when[0]) sdk_em_close(em);
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
  } else if (pass == 1 && a->R > G && a->gmode == SDK_GM_ALIGN) {
    sdk_em_open(em, "while (nend - n >= %d && n %% %d != 0)", G, a->R);
    sdk_em_line(em, "const sdk_i64 sdk_left = (nend - n) / %d, sdk_al = (%d - n %% %d) / %d;", G,
                a->R, a->R, G);
    sdk_em_line(em, "const int sdk_ng = (int)(sdk_left < sdk_al ? sdk_left : sdk_al);");
  } else if (pass == 1 && a->R > G && a->gmode == SDK_GM_MAIN) {
    sdk_em_open(em, "while (nend - n >= %d)", a->R);
    sdk_em_line(em, "const sdk_i64 sdk_left = (nend - n) / %d;", a->R);
    sdk_em_line(em, "const int sdk_ng = (sdk_left > (1 << 27) ? (1 << 27) : (int)sdk_left) * %d;",
                a->R / G);
  } else if (pass == 1) {
    /* whole groups with a 32-bit count and the Philox counter as base +
     * offset: the 64-bit step arithmetic stays out of the loop, and the
     * unrolled body amortises the loop control and the table pointer
     * (38.9 instead of 41.3 SASS instructions per josephson SRK2 step) */
    sdk_em_open(em, "while (nend - n >= %d)", G);
    sdk_em_line(em, "const sdk_i64 sdk_left = (nend - n) / %d;", G);
    sdk_em_line(em, "const int sdk_ng = sdk_left > (1 << 30) ? (1 << 30) : (int)sdk_left;");
  } else {
    sdk_em_open(em, "while (n < nend)");
  }
  if (pass == 1) {
    sdk_em_line(em, "const sdk_u64 sdk_c0 = (sdk_u64)((n * SDK_NN) >> 2);");
    sdk_em_line(em, "(void)sdk_c0;");
    sdk_cg_delay_cuda_ahead(em, o, G);
    /* (the delays' quads, delay_cuda.c, twice: unrolled 4 times, with
     * their loads hoisted, delay_ou took 47 registers instead of 32, 40
     * warps an SM instead of 64; NVRTC 13.0, sm_90; ALIGN's and TAIL's few
     * groups once) */
    if (a->R > G && a->gmode != SDK_GM_MAIN)
      sdk_em_line(em, "#pragma unroll 1");
    else
      sdk_em_line(em, "#pragma unroll %d", o->single && !sdk_cg_delay_quads(o) ? 4 : 2);
    sdk_em_open(em, "for (int sdk_gi = 0; sdk_gi < sdk_ng; sdk_gi++)");
    sdk_em_line(em, "const sdk_i64 sdk_n = n + (sdk_i64)sdk_gi * %d; (void)sdk_n;", G);
  }
  if (pass == 1) sdk_cg_delay_cuda_group(em, o, G); /* (its reads first) */
  if (a->grouptab) sdk_em_line(em, "const real *sdk_tt = sdk_ttab + sdk_ph * SDK_TT_SLOTS;");
  const char *vt = o->single ? "float4" : "double2";
  for (int qv = 0; a->vecload && qv < G * a->nslot / a->per_vec; qv++)
    sdk_em_line(em, "const %s sdk_tv%d = ((const %s *)sdk_tt)[%d];", vt, qv, vt, qv);
  const sdk_noise_type *nz = sdk_cg_noise(o);
  for (int k = 0; pass == 1 && k < a->nblk_group; k++) {
    char block[96], dst[32];
    snprintf(block, sizeof block, "sdk_c0 + (sdk_u64)sdk_gi * %d + %d", a->nblk_group, k);
    snprintf(dst, sizeof dst, "r0_%d", k);
    sdk_em_line(em, "real %s[%d];", dst, nz->values_per_block);
    if (a->keys)
      sdk_noise_block_k(em, nz, a->keys, "gp0", block, 0, dst);
    else
      sdk_noise_block(em, nz, "sdk_seed", "gp0", block, 0, dst);
  }
  /* [levy] in single precision: one block per pair of steps (G even) */
  for (int j = 0; pass == 1 && sdk_cg_levy_pairs(o) && j < o->model->nnoise; j++) {
    int l = sdk_cg_levy_channel(o->model, j);
    for (int p = 0; l >= 0 && p < G / 2; p++) {
      char pair[64], dst[32];
      snprintf(pair, sizeof pair, "((sdk_u64)sdk_n >> 1) + %du", p);
      snprintf(dst, sizeof dst, "lv0_%d_%d", j, p);
      sdk_cg_levy_block(em, o, l, pair, "gp0", "sdk_seed", a->keys, dst);
    }
  }
  for (int r = 0; r < (pass == 1 ? G : 1); r++)
    emit_rep(em, a, r);
  if (pass == 1) sdk_cg_delay_cuda_group_end(em, o, G);
  if (a->grouptab) {
    sdk_em_line(em, "sdk_ph += %d;", G);
    sdk_em_line(em, "if (sdk_ph == %lldLL) sdk_ph = 0;", (long long)o->spp);
  }
  /* a warp whose paths are all absorbed leaves (a uniform branch: no cost
   * in registers, unlike a lane's own exit) */
  if (pass == 1 && o->model->nbound > 0)
    sdk_em_line(em, "if (__all_sync(sdk_wm, bs0 != (real)0%s)) goto sdk_frozen;",
                o->dt_check ? " && cb0_0 != (real)0" : "");
  if (pass == 1) {
    sdk_em_close(em);
    sdk_em_line(em, "n += (sdk_i64)sdk_ng * %d;", G);
  }
  sdk_em_close(em);
}

/* [boundaries]: "st[BOUND * npad + P] == (real)0;", whether the path P
 * (its fine copy, or with --dt-check also its coarse one) is alive: the end
 * of an expression (the hooks on of advance_live.cuh, alive of
 * live_list.cuh) */
static void emit_alive(sdk_emit *em, const sdk_codegen_opts *o, const char *p) {
  sdk_cg_row_layout rows;
  sdk_cg_rows(o, &rows);
  if (rows.dtc_bound >= 0)
    sdk_em_line(em, "(st[%d * npad + %s] == (real)0 || st[%d * npad + %s] == (real)0);", rows.bound,
                p, rows.dtc_bound, p);
  else
    sdk_em_line(em, "st[%d * npad + %s] == (real)0;", rows.bound, p);
}

static void hook_on(sdk_emit *em, const void *c) {
  emit_alive(em, ((const cu_adv *)c)->o, "base");
}

static void hook_alive(sdk_emit *em, const void *c) {
  emit_alive(em, ((const cu_adv *)c)->o, "p");
}

/* path.cuh's hook steps: the passes of the steps, the state rows back */
static void hook_steps(sdk_emit *em, const void *c) {
  cu_adv a = *(const cu_adv *)c; /* (a pass's fields change) */
  const sdk_codegen_opts *o = a.o;
  if (o->spp > 0) {
    const char *pht = o->spp <= INT_MAX ? "int" : "sdk_i64";
    sdk_em_line(em, "%s sdk_ph = (%s)(step0 %% %lldLL);", pht, pht, (long long)o->spp);
  }
  sdk_cg_delay_cuda_start(em, o);
  if (a.keys) { /* (the noise's draws, emit_noise and emit_pass) */
    sdk_em_line(em, "sdk_philox_keys %s;", a.keys);
    sdk_em_line(em, "sdk_philox_keys_of(sdk_seed, &%s);", a.keys);
  }
  if (sdk_cg_adaptive_slices(o)) /* (all the launch's steps in one call) */
    emit_slices_call(em, &a);
  else
    for (int pass = 0; pass < 3; pass++)
      if (pass == 1 && a.R > a.G)
        for (int m = 0; m < 3; m++) {
          static const int order[3] = {SDK_GM_ALIGN, SDK_GM_MAIN, SDK_GM_TAIL};
          a.gmode = order[m];
          emit_pass(em, &a, pass);
        }
      else
        emit_pass(em, &a, pass);
  if (o->model->nbound > 0) {
    sdk_em_line(em, "sdk_frozen:");
    emit_values_io(em, o, 1, 1);
  }
  emit_values_io(em, o, 1, 0);
  sdk_cg_acf_cuda_io(em, o, 1, NULL);
}

/* advance*.cuh's hook path: the file path.cuh, which both share */
static void hook_path(sdk_emit *em, const void *c) {
  static const sdk_em_hook hooks[] = {{"values", hook_values}, {"steps", hook_steps}};
  sdk_em_kernel_hooks(em, sdk_embedded_path_cuh, hooks, 2, c);
}

void sdk_cg_cuda_paths(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  int nn = m->nnoise;
  cu_adv a = {.o = o};
  a.G = nn > 0 && !o->adaptive ? 4 / gcd4(nn) : 1;
  if (sdk_cg_levy_pairs(o) && a.G == 1) a.G = 2; /* (whole pairs of steps per group) */
  a.nblk_group = nn > 0 && !o->adaptive ? a.G * nn / 4 : 0;
  a.keys = a.nblk_group > 0 && o->single ? "sdk_keys" : NULL;
  a.defer = o->compensate && o->comp_defer;
  a.R = a.G;
  /* the renormalisation at the ends of the unrolled iterations, every 4 G
   * steps instead of every G (-0.375 instructions a step of PROG1's 39.56),
   * where some variable is compensated and nothing else rides on the
   * groups' pipeline (delays, Levy pairs keep R = G) */
  for (int v = 0; a.defer && v < m->nvars; v++)
    if (sdk_cg_comp_var(o, v) && m->ndelay == 0 && !sdk_cg_levy_pairs(o)) a.R = 4 * a.G;
  /* time-only subexpressions from a per-phase table (periodic models) */
  sdk_cg_hoist h;
  sdk_cg_hoist_init(&h, o, o->spp > 0 && o->spp <= SDK_CUDA_MAX_TTAB && o->dt_column < 0);
  h.phase_only = 1; /* the table is indexed by the phase */
  sdk_strbuf step;
  sdk_sb_init(&step);
  sdk_emit se = sdk_em_child(em, &step); /* (the size cap) */
  se.depth = 3;
  sdk_cg_bound_pre(&se, o, 0);
  sdk_cg_resets_pre(&se, o);
  /* --adaptive: the whole steps' time-only values from a table of their
   * own (adaptive.c; the step takes no table values as arguments) */
  sdk_cg_hoist ah;
  sdk_cg_hoist_init(&ah, o, h.enabled && o->adaptive);
  if (o->adaptive) /* (its noise from the Brownian tree, inside the step) */
    sdk_cg_adaptive_step(&se, o, "sdk_nstep", "sdk_gpath", "sdk_seed", &ah);
  else
    o->scheme->emit_step(&se, o, h.enabled ? &h : NULL);
  sdk_cg_events(&se, o, "sdk_nstep", "sdk_gpath", "sdk_seed");
  sdk_cg_bound_post(&se, o, "sdk_nstep", "sdk_gpath", "sdk_seed", 0);
  for (int i = 0; i < SDK_MAX_STAGES; i++)
    for (int k = 0; k < h.n; k++)
      if (h.used[i] & (1u << k)) a.slot_stage[a.nslot] = i, a.slot_k[a.nslot++] = k;
  a.h = &h;
  if (a.nslot > 0) emit_ttab(em, &a);
  cu_adv aa = {.o = o, .h = &ah, .adaptive_tab = 1};
  for (int i = 0; i < SDK_MAX_STAGES; i++)
    for (int k = 0; k < ah.n; k++)
      if (ah.used[i] & (1u << k)) aa.slot_stage[aa.nslot] = i, aa.slot_k[aa.nslot++] = k;
  if (aa.nslot > 0) emit_ttab(em, &aa);
  sdk_em_puts(em, "\n");
  if (m->nbound > 0) { /* the list of the paths still alive */
    static const sdk_em_hook live[] = {{"alive", hook_alive}};
    sdk_em_puts(em, "\n");
    sdk_em_kernel_hooks(em, sdk_embedded_live_list_cuh, live, 1, &a);
  }
  emit_step_fn(em, &a, &step, "sdk_step");
  sdk_sb_free(&step);
  if (o->dt_check) {
    /* the coarse path's step (codegen.h): dt := 2 dt, no hoisting, a Kahan
     * sum every step where compensated (its rows keep no high parts) */
    sdk_codegen_opts oc = *o;
    oc.dt = 2 * o->dt;
    oc.comp_defer = 0;
    oc.coarse = 1; /* (its bridge draws: boundary.c) */
    cu_adv ac = {.o = &oc, .G = a.G};
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
  emit_acf_fn(em, &a);
  static const sdk_em_hook hooks[] = {{"on", hook_on}, {"path", hook_path}};
  sdk_em_puts(em, "\n");
  sdk_em_kernel_hooks(em, m->nbound > 0 ? sdk_embedded_advance_live_cuh : sdk_embedded_advance_cuh,
                      hooks, 2, &a);
}
