/* CPU driver of independent paths: an OpenMP loop over blocks of
 * SDK_CPU_BLOCK paths (abi.h), each block integrating all steps of a launch
 * with its state in a small array, the noise of SDK_CPU_SUBSTEPS steps drawn
 * together and the step vectorised over the block (#pragma omp simd).
 *
 *   void sdk_init(st, npad, sv, ppg, ngrid, path0, seed, nthreads)
 *   void sdk_advance(st, npad, sv, ppg, ngrid, path0, step0, nsteps, seed, nthreads)
 *
 * Noise value k = n * SDK_NN + j of step n, channel j, is lane k & 3 of the
 * path's stream block k >> 2 (rng/philox.h, domain 0), whatever the launch. */
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

extern const char sdk_embedded_init_h[], sdk_embedded_advance_h[];

void sdk_cg_cpu_head(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  int nv = m->nvars, nn = m->nnoise;
  /* rows of the block's noise buffer: a sub-chunk's values, whole blocks */
  int zrows = ((SDK_CPU_SUBSTEPS * (nn > 0 ? nn : 1) + 3) / 4 + 1) * 4;
  if (o->sysmode) zrows = 4; /* unused there */
  sdk_em_puts(em, "\n");
  sdk_em_line(em, "#define SDK_BLK %d", SDK_CPU_BLOCK);
  sdk_em_line(em, "#define SDK_SUB %d", SDK_CPU_SUBSTEPS);
  sdk_em_line(em, "#define SDK_ZROWS %d", zrows);
  sdk_em_line(em, "int sdk_abi(void) { return %d; }", SDK_KERNEL_ABI);
  sdk_cg_row_layout rows;
  sdk_cg_rows(o, &rows);
  if (rows.total > nv) sdk_em_line(em, "int sdk_state_rows(void) { return %d; }", rows.total);
  sdk_em_puts(em, "\n");
  sdk_cg_init_kernel(em, o, sdk_embedded_init_h, 0);
}

/* The block's arrays of per-path values, NAME[k][i] for value k of path p0
 * + i, in the order of their rows (codegen.h): the one table behind their
 * declaration, load and store. */
typedef struct {
  const char *name, *name2; /* name2: the E of S side by side, in one loop */
  int block, skip, stride;  /* value k in row first + skip + stride * k of the block */
  char var;                 /* the loop's index */
  const char *count;        /* the number of values as the prelude names it (NULL: a number) */
  const char *row, *row2;   /* row k: a format of (first + skip, stride) */
  int decl; /* 0: declared by advance.h; 1: here; 2: here, after sdk_kz (its sums use SDK_OPQ) */
  int ro;   /* read-only: loaded, never stored back */
} block_array;
static const block_array block_arrays[] = {
    {"xs", NULL, SDK_CG_B_VARS, 0, 1, 'v', "SDK_NV", "v", NULL, 0, 0},
    {"bst", NULL, SDK_CG_B_BOUND, 0, 1, 'v', NULL, "(%d + v)", NULL, 1, 0},
    {"cs", NULL, SDK_CG_B_COMP, 0, 1, 'v', "SDK_NV", "(SDK_NV + v)", NULL, 2, 0},
    {"as", "ae", SDK_CG_B_TAVG, 0, 2, 'j', "SDK_NTAVG", "(SDK_TAVG_ROW + 2 * j)",
     "(SDK_TAVG_ROW + 2 * j + 1)", 2, 0},
    /* --dt-check: the coupled coarse path */
    {"xcs", NULL, SDK_CG_B_DTC, 0, 1, 'j', NULL, "(%d + %d * j)", NULL, 1, 0},
    {"ccs", NULL, SDK_CG_B_DTC_COMP, 0, 1, 'j', NULL, "(%d + %d * j)", NULL, 1, 0},
    {"zhs", NULL, SDK_CG_B_DTC_Z, 0, 1, 'j', NULL, "(%d + %d * j)", NULL, 1, 0},
    {"d0s", NULL, SDK_CG_B_DTC_D0, 0, 1, 'j', NULL, "(%d + %d * j)", NULL, 1, 0},
    {"acs", NULL, SDK_CG_B_DTC_TAVG, 0, 2, 'j', NULL, "(%d + %d * j)", NULL, 1, 0},
    {"aces", NULL, SDK_CG_B_DTC_TAVG, 1, 2, 'j', NULL, "(%d + %d * j)", NULL, 1, 0},
    {"cbst", NULL, SDK_CG_B_DTC_BOUND, 0, 1, 'j', NULL, "(%d + %d * j)", NULL, 1, 0},
    /* the [particle] parameters of the paths (codegen.h), drawn by sdk_init */
    {"pps", NULL, SDK_CG_B_PPAR, 0, 1, 'j', NULL, "(%d + %d * j)", NULL, 1, 1},
    /* --adaptive: the step controller's rows (codegen/adaptive.c) */
    {"ads", NULL, SDK_CG_B_ADAPT, 0, 1, 'j', NULL, "(%d + %d * j)", NULL, 1, 0},
};

/* The block's arrays in (declared and loaded) or, out = 1, back out (the
 * hooks load and store of advance.h). */
static void emit_state_io(sdk_emit *em, const sdk_codegen_opts *o, int out) {
  sdk_cg_row_layout l;
  sdk_cg_rows(o, &l);
  int kz = 0;
  for (size_t b = 0; b < sizeof block_arrays / sizeof block_arrays[0]; b++) {
    const block_array *a = &block_arrays[b];
    int n, first = sdk_cg_block(&l, o->model->nnoise, a->block, &n);
    if (n == 0 || (out && a->ro)) continue;
    char count[16], row[64], row2[64];
    snprintf(count, sizeof count, "%d", n);
    const char *cnt = a->count ? a->count : count;
    snprintf(row, sizeof row, a->row, first + a->skip, a->stride);
    if (a->name2) snprintf(row2, sizeof row2, a->row2, first + a->skip, a->stride);
    if (!out && a->decl == 2 && !kz++) sdk_em_line(em, "const int sdk_kz = sdk_opq_zero_;");
    if (!out && a->decl && a->name2)
      sdk_em_line(em, "real %s[%s][SDK_BLK], %s[%s][SDK_BLK];", a->name, cnt, a->name2, cnt);
    else if (!out && a->decl)
      sdk_em_line(em, "real %s[%s][SDK_BLK];", a->name, cnt);
    sdk_em_line(em, "for (int %c = 0; %c < %s; %c++)", a->var, a->var, cnt, a->var);
    em->depth++;
    if (a->name2) sdk_em_open(em, "for (int i = 0; i < SDK_BLK; i++)"); /* (a pair in one loop) */
    for (int h = 0; h < (a->name2 ? 2 : 1); h++) {
      const char *name = h ? a->name2 : a->name, *r = h ? row2 : row;
      char set[160];
      if (out)
        snprintf(set, sizeof set, "st[%s * npad + p0 + i] = %s[%c][i];", r, name, a->var);
      else
        snprintf(set, sizeof set, "%s[%c][i] = st[%s * npad + p0 + i];", name, a->var, r);
      sdk_em_line(em, "%s%s", a->name2 ? "" : "for (int i = 0; i < SDK_BLK; i++) ", set);
    }
    if (a->name2) sdk_em_close(em);
    em->depth--;
  }
  sdk_cg_acf_cpu_io(em, o, out); /* (--observe acf in the kernel) */
}

/* --dt-check: after fine step n, the coupled coarse path (codegen.h): the
 * noise of an even step waits; after an odd one the coarse step from
 * t_{n-1} over 2 dt with the pair's summed noise, its time averages, and at
 * step SDK_DTC_MARK the origin of the displacements. */
static void emit_coarse(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  int nv = m->nvars, nn = m->nnoise;
  sdk_codegen_opts oc = *o;
  oc.dt = 2 * o->dt; /* (emitters read sdk_dt; this is for the record) */
  sdk_em_open(em, "if (((n) & 1) == 0)");
  for (int j = 0; j < nn; j++)
    sdk_em_line(em, "zhs[%d][i] = sdk_z%d;", j, j);
  sdk_em_close(em);
  sdk_em_open(em, "else");
  for (int j = 0; j < nn; j++)
    sdk_em_line(em, "const real sdk_zc%d = (zhs[%d][i] + sdk_z%d) * (real)0.70710678118654752;", j,
                j, j);
  sdk_em_line(em, "const real sdk_dtc = (real)2 * sdk_dt;");
  sdk_cg_step_time(em, o, "n - 1", "_c");
  sdk_em_block(em);
  sdk_em_line(em, "const real sdk_dt = sdk_dtc;");
  sdk_em_line(em, "const real sdk_sqdt = %s(sdk_dt); (void)sdk_sqdt;",
              o->single ? "sqrtf" : "sqrt");
  sdk_em_line(em, "const real sdk_t0 = sdk_t0_c; (void)sdk_t0;");
  if (o->spp > 0) sdk_em_line(em, "const real sdk_tp0 = sdk_tp0_c; (void)sdk_tp0;");
  for (int j = 0; j < nn; j++)
    sdk_em_line(em, "const real sdk_z%d = sdk_zc%d;", j, j);
  for (int v = 0; v < nv; v++)
    sdk_em_line(em, "real sdk_x%d = xcs[%d][i];", v, v);
  for (int v = 0; o->compensate && v < nv; v++) /* (a plain variable's row stays 0) */
    sdk_em_line(em, sdk_cg_comp_var(o, v) ? "real sdk_c%d = ccs[%d][i];" : "real sdk_c%d = 0;", v,
                v);
  int bound = m->nbound > 0;
  oc.coarse = 1; /* (its bridge draws: boundary.c) */
  if (bound) {   /* its own boundary rows, a frozen lane's state put back */
    sdk_em_line(em, "real sdk_bs = cbst[0][i], sdk_bl = cbst[1][i], sdk_bh = cbst[2][i];");
    sdk_cg_bound_pre(em, &oc, 1);
    sdk_cg_bound_lane_decls(em, &oc);
  }
  o->scheme->emit_step(em, &oc, NULL);
  if (bound) {
    sdk_cg_bound_post(em, &oc, "n", "(sdk_u64)(path0 + p0 + i)", "sdk_seed", 1);
    sdk_em_line(em, "cbst[0][i] = sdk_bs; cbst[1][i] = sdk_bl; cbst[2][i] = sdk_bh;");
    sdk_cg_bound_lane_out(em, &oc, "cbpr");
  }
  for (int v = 0; v < nv; v++)
    sdk_em_line(em, "xcs[%d][i] = sdk_x%d;", v, v);
  for (int v = 0; o->compensate && v < nv; v++)
    if (sdk_cg_comp_var(o, v)) sdk_em_line(em, "ccs[%d][i] = sdk_c%d;", v, v);
  sdk_em_close(em);
  if (o->tavg) { /* the coarse state after the pair is state n + 1 */
    sdk_em_line(em, "if (n - 1 >= SDK_TAVG_FROM)");
    sdk_cg_tavg_add(em, o, "xcs[%d][i]", "acs[%d][i]", "aces[%d][i]", "n + 1");
  }
  sdk_em_open(em, "if (n + 1 == SDK_DTC_MARK)");
  for (int v = 0; v < nv; v++)
    sdk_em_line(em, "d0s[%d][i] = xcs[%d][i] - sdk_x%d;", v, v, v);
  sdk_em_close(em);
  sdk_em_close(em);
}

/* this sub-chunk's noise values for all paths of the block: whole blocks,
 * and where a sub-chunk starts or ends inside a block only the half it uses
 * when the source can draw halves (a launch of 10 steps of one channel then
 * draws 10 values, not 12: sampling every 10 steps costs no extra noise) */
static void emit_noise_draw(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_noise_type *nz = sdk_cg_noise(o);
  int nb = nz->values_per_block;
  sdk_em_text(em, "/* draw this sub-chunk's Gaussians for all paths of the block */\n"
                  "const sdk_i64 k0 = (step0 + s) * SDK_NN, k1 = (step0 + s + ns) * SDK_NN;\n"
                  "const sdk_i64 b0 = k0 >> 2, b1 = (k1 + 3) >> 2;\n");
  if (sdk_cg_levy_all(o)) { /* ([levy] on every channel: its own draws alone) */
    sdk_em_line(em, "(void)b1;");
    sdk_cg_levy_cpu_draws(em, o);
    return;
  }
  sdk_em_open(em, "for (sdk_i64 bk = b0; bk < b1; bk++)");
  if (nz->halves && nb == 4) {
    /* the values [lo, hi) of this block are used */
    sdk_em_line(em, "const sdk_i64 lo = k0 > bk * 4 ? k0 - bk * 4 : 0;");
    sdk_em_line(em, "const sdk_i64 hi = k1 < bk * 4 + 4 ? k1 - bk * 4 : 4;");
    sdk_em_open(em, "if (lo >= 2 || hi <= 2)");
    sdk_em_line(em, "const int half = lo >= 2;");
    sdk_em_line(em, "#pragma omp simd");
    sdk_em_open(em, "for (int i = 0; i < SDK_BLK; i++)");
    sdk_em_line(em, "real g2[2];");
    sdk_noise_at(em, nz, "sdk_seed", "(sdk_u64)(path0 + p0 + i)", "(sdk_u64)bk", 0, "half", "g2");
    sdk_em_line(em, "zb[(bk - b0) * 4 + 2 * half][i] = g2[0];");
    sdk_em_line(em, "zb[(bk - b0) * 4 + 2 * half + 1][i] = g2[1];");
    sdk_em_close(em);
    sdk_em_line(em, "continue;");
    sdk_em_close(em);
  }
  sdk_em_line(em, "#pragma omp simd");
  sdk_em_open(em, "for (int i = 0; i < SDK_BLK; i++)");
  sdk_em_line(em, "real g4[%d];", nb);
  sdk_noise_block(em, nz, "sdk_seed", "(sdk_u64)(path0 + p0 + i)", "(sdk_u64)bk", 0, "g4");
  sdk_em_line(em, "for (int l = 0; l < %d; l++) zb[(bk - b0) * %d + l][i] = g4[l];", nb, nb);
  sdk_em_close(em);
  sdk_em_close(em);
  sdk_cg_levy_cpu_draws(em, o); /* ([levy]: over its channels' Gaussians) */
}

/* The per-path body of a step (parameters, state, the step, state back),
 * written into `body` (the hoisted values it uses are recorded in h);
 * *split: where the parameters end (the step's time goes there when it is
 * not hoisted). */
static void emit_body(const sdk_emit *em, sdk_strbuf *body, size_t *split,
                      const sdk_codegen_opts *o, sdk_cg_hoist *h) {
  const sdk_model *m = o->model;
  int nv = m->nvars;
  sdk_emit be = sdk_em_child(em, body);
  sdk_cg_params(&be, o, "spv[%d][i]");
  sdk_cg_ppar_bind(&be, o, "pps[%d][i]");
  *split = body->len;
  for (int v = 0; v < nv; v++)
    sdk_em_line(&be, "real sdk_x%d = xs[%d][i];", v, v);
  for (int v = 0; o->compensate && v < nv; v++) /* (a plain variable's row stays 0) */
    sdk_em_line(&be, sdk_cg_comp_var(o, v) ? "real sdk_c%d = cs[%d][i];" : "real sdk_c%d = 0;", v,
                v);
  for (int j = 0; j < m->nnoise && !o->adaptive; j++) {
    int l = sdk_cg_levy_channel(m, j);   /* (alpha-stable in place of Gaussian) */
    if (sdk_cg_levy_predrawn(o)) l = -1; /* (drawn into zb: emit_noise_draw) */
    sdk_em_line(&be, l < 0 ? "const real sdk_z%d = zb[zo + %d][i];" : "real sdk_z%d;", j, j);
    if (l >= 0) {
      char z[32];
      snprintf(z, sizeof z, "sdk_z%d", j);
      sdk_cg_levy_z(&be, o, l, "n", "(sdk_u64)(path0 + p0 + i)", "sdk_seed", "sdk_dt", z);
    }
  }
  int bound = m->nbound > 0;
  if (bound) {
    sdk_em_line(&be, "real sdk_bs = bst[0][i], sdk_bl = bst[1][i], sdk_bh = bst[2][i];");
    sdk_cg_bound_pre(&be, o, 1);
    sdk_cg_bound_lane_decls(&be, o);
  }
  sdk_cg_resets_pre(&be, o);
  sdk_cg_acf_cpu_first(&be, o);
  sdk_cg_psd_first(&be, o, "n", "sdk_x%d", "(st + p0 + i)");
  sdk_cg_delay_pre(&be, o, "n", "(st + p0 + i)", "npad");
  if (o->adaptive)
    sdk_cg_adaptive_step(&be, o, "n", "(sdk_u64)(path0 + p0 + i)", "sdk_seed", NULL);
  else
    o->scheme->emit_step(&be, o, h);
  sdk_cg_events(&be, o, "n", "(sdk_u64)(path0 + p0 + i)", "sdk_seed");
  if (bound) {
    sdk_cg_bound_post(&be, o, "n", "(sdk_u64)(path0 + p0 + i)", "sdk_seed", 1);
    sdk_em_line(&be, "bst[0][i] = sdk_bs; bst[1][i] = sdk_bl; bst[2][i] = sdk_bh;");
    sdk_cg_bound_lane_out(&be, o, "bpr");
  }
  for (int v = 0; v < nv; v++)
    sdk_em_line(&be, "xs[%d][i] = sdk_x%d;", v, v);
  for (int v = 0; o->compensate && v < nv; v++)
    if (sdk_cg_comp_var(o, v)) sdk_em_line(&be, "cs[%d][i] = sdk_c%d;", v, v);
  if (o->tavg) { /* the state after step n is state n + 1 (codegen.h) */
    sdk_em_line(&be, "if (n >= SDK_TAVG_FROM)");
    sdk_cg_tavg_add(&be, o, "sdk_x%d", "as[%d][i]", "ae[%d][i]", "n + 1");
  }
  sdk_cg_acf_cpu_step(&be, o);
  sdk_cg_psd_step(&be, o, "n", "sdk_x%d", "(st + p0 + i)");
  if (o->dt_check) emit_coarse(&be, o);
}

/* the steps of a sub-chunk: time-only values once per step (hoisted), then
 * the block's paths */
static void emit_substeps(sdk_emit *em, const sdk_codegen_opts *o) {
  sdk_em_open(em, "for (sdk_i64 ss = 0; ss < ns; ss++)");
  sdk_em_line(em, "const sdk_i64 n = step0 + s + ss;");
  if (o->model->nnoise > 0 && !o->adaptive)
    sdk_em_line(em, "const sdk_i64 zo = n * SDK_NN - b0 * 4;");
  /* the per-path body first, to learn which time-only values it uses */
  sdk_cg_hoist h;
  sdk_cg_hoist_init(&h, o, o->dt_column < 0 && !o->adaptive);
  sdk_strbuf body;
  sdk_sb_init(&body);
  size_t split = 0;
  sdk_emit inner = *em;
  inner.depth++; /* inside the simd loop below */
  emit_body(&inner, &body, &split, o, &h);
  if (h.enabled) {
    /* the scope of the step's values (its contents are not indented) */
    sdk_em_line(em, "{");
    sdk_cg_fixed_params(em, o);
    sdk_em_start(em, "const real sdk_dt = ");
    sdk_em_number(em, o->dt);
    sdk_em_puts(em, ";\n");
    sdk_cg_step_time(em, o, "n", "");
    sdk_cg_hoist_decls(em, o, &h);
  }
  int ndef = o->model->nbound > 0 ? sdk_cg_bound_deferred(o) : 0;
  if (ndef > 0) {
    /* the bridge probabilities of the block's paths (boundary.c); the
     * coarse path's of --dt-check, written at its steps (odd n) */
    sdk_em_line(em, "real bpr[%d][SDK_BLK];", o->model->nbound);
    if (o->dt_check) sdk_em_line(em, "real cbpr[%d][SDK_BLK];", o->model->nbound);
    sdk_em_line(em, "int sdk_anyp = 0;");
    sdk_em_line(em, "#pragma omp simd reduction(|:sdk_anyp)");
  } else if (o->model->nevent > 0) { /* (resets.h: the scalar pass below) */
    sdk_cg_resets_lane_decls(em, o);
    sdk_em_line(em, "#pragma omp simd reduction(|:sdk_anye)");
  } else {
    sdk_em_line(em, "#pragma omp simd");
    if (sdk_cg_comp_interleave(o)) sdk_em_line(em, "SDK_F2S_LOOP");
  }
  sdk_em_open(em, "for (int i = 0; i < SDK_BLK; i++)");
  sdk_em_append_range(em, &body, 0, split);
  if (!h.enabled) sdk_cg_step_time(em, o, "n", "");
  sdk_em_append_range(em, &body, split, body.len);
  sdk_sb_free(&body);
  sdk_em_close(em); /* simd loop */
  sdk_cg_psd_cpu_segments(em, o);
  if (ndef > 0) {
    sdk_em_open(em, "if (sdk_anyp)");
    sdk_cg_bound_draws(em, o, "n", "(sdk_u64)(path0 + p0 + i)", "sdk_seed", "bpr", "bst");
    if (o->dt_check) {
      sdk_codegen_opts oc = *o;
      oc.coarse = 1;
      sdk_em_open(em, "if ((n & 1) != 0)");
      sdk_cg_bound_draws(em, &oc, "n", "(sdk_u64)(path0 + p0 + i)", "sdk_seed", "cbpr", "cbst");
      sdk_em_close(em);
    }
    sdk_em_close(em);
  }
  if (o->model->nevent > 0)
    sdk_cg_resets_scalar(em, o, "n", "(sdk_u64)(path0 + p0 + i)", "sdk_seed");
  if (h.enabled) sdk_em_line(em, "}");
  sdk_em_close(em);
}

/* The context of advance.h's hooks. */
typedef struct {
  const sdk_codegen_opts *o;
} adv_ctx;

static void hook_load(sdk_emit *em, const void *c) {
  emit_state_io(em, ((const adv_ctx *)c)->o, 0);
}

static void hook_store(sdk_emit *em, const void *c) {
  emit_state_io(em, ((const adv_ctx *)c)->o, 1);
}

/* a sub-chunk: its noise, then its steps */
static void hook_steps(sdk_emit *em, const void *c) {
  const sdk_codegen_opts *o = ((const adv_ctx *)c)->o;
  if (o->model->nbound > 0) {
    /* a block whose paths are all absorbed has nothing left to do */
    sdk_em_line(em, "int sdk_alive = 0;");
    sdk_em_line(em, "for (int i = 0; i < SDK_BLK; i++) sdk_alive |= bst[0][i] == (real)0%s;",
                o->dt_check ? " || cbst[0][i] == (real)0" : ""); /* (or its coarse copy) */
    sdk_em_line(em, "if (!sdk_alive) break;");
  }
  if (o->model->nnoise > 0 && !o->adaptive) emit_noise_draw(em, o);
  emit_substeps(em, o);
}

void sdk_cg_cpu_paths(sdk_emit *em, const sdk_codegen_opts *o) {
  static const sdk_em_hook hooks[] = {
      {"load", hook_load}, {"steps", hook_steps}, {"store", hook_store}};
  const adv_ctx c = {o};
  sdk_em_puts(em, "\n");
  sdk_em_kernel_hooks(em, sdk_embedded_advance_h, hooks, 3, &c);
}
