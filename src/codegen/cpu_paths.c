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
#include "codegen/boundary.h"
#include "codegen/codegen.h"
#include "codegen/common.h"
#include "codegen/drivers.h"
#include "codegen/events.h"
#include "codegen/expr_emit.h"

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
  sdk_em_line(em, "static int sdk_threads(int n) { return n > 0 ? n : omp_get_max_threads(); }");

  sdk_em_puts(em, "\n");
  sdk_em_open(em, "void sdk_init(real *restrict st, sdk_i64 npad, const real *restrict sv, "
                  "sdk_i64 ppg, sdk_i64 ngrid, sdk_i64 path0, sdk_u64 sdk_seed, int nthreads)");
  sdk_em_line(em, "#pragma omp parallel for schedule(static) num_threads(sdk_threads(nthreads))");
  sdk_em_open(em, "for (sdk_i64 p = 0; p < npad; p++)");
  sdk_em_text(em, "const sdk_u64 sdk_gpath = (sdk_u64)(path0 + p);\n"
                  "sdk_i64 g = (path0 + p) / ppg; if (g >= ngrid) g = ngrid - 1;\n"
                  "(void)sv; (void)g;\n");
  sdk_cg_init_path(em, o, 0);
  sdk_em_close(em);
  sdk_em_close(em);
}

/* the block's state in (and, out = 1, back out) */
static void emit_state_io(sdk_emit *em, const sdk_codegen_opts *o, int out) {
  sdk_em_line(em, "for (int v = 0; v < SDK_NV; v++)");
  sdk_em_line(em, "  for (int i = 0; i < SDK_BLK; i++) %s;",
              out ? "st[v * npad + p0 + i] = xs[v][i]" : "xs[v][i] = st[v * npad + p0 + i]");
  sdk_cg_row_layout rows;
  sdk_cg_rows(o, &rows);
  if (rows.bound >= 0) { /* the boundary rows (codegen.h) */
    if (!out) sdk_em_line(em, "real bst[%d][SDK_BLK];", SDK_CG_BOUND_ROWS);
    sdk_em_line(em, "for (int v = 0; v < %d; v++)", SDK_CG_BOUND_ROWS);
    if (out)
      sdk_em_line(em,
                  "  for (int i = 0; i < SDK_BLK; i++) st[(%d + v) * npad + p0 + i] = bst[v][i];",
                  rows.bound);
    else
      sdk_em_line(em,
                  "  for (int i = 0; i < SDK_BLK; i++) bst[v][i] = st[(%d + v) * npad + p0 + i];",
                  rows.bound);
  }
  if (!o->compensate) return;
  if (!out) /* the carried errors, rows SDK_NV.. (codegen.h) */
    sdk_em_text(em, "const int sdk_kz = sdk_opq_zero_;\n"
                    "real cs[SDK_NV][SDK_BLK];\n");
  sdk_em_line(em, "for (int v = 0; v < SDK_NV; v++)");
  sdk_em_line(em, "  for (int i = 0; i < SDK_BLK; i++) %s;",
              out ? "st[(SDK_NV + v) * npad + p0 + i] = cs[v][i]"
                  : "cs[v][i] = st[(SDK_NV + v) * npad + p0 + i]");
}

/* the block's time-average accumulators in (and, out = 1, back out): rows
 * SDK_TAVG_ROW.. (codegen.h) */
static void emit_tavg_io(sdk_emit *em, const sdk_codegen_opts *o, int out) {
  if (!o->tavg) return;
  if (!out && !o->compensate) sdk_em_line(em, "const int sdk_kz = sdk_opq_zero_;");
  if (!out) sdk_em_line(em, "real as[SDK_NTAVG][SDK_BLK], ae[SDK_NTAVG][SDK_BLK];");
  sdk_em_line(em, "for (int j = 0; j < SDK_NTAVG; j++)");
  sdk_em_open(em, "for (int i = 0; i < SDK_BLK; i++)");
  if (out)
    sdk_em_text(em, "st[(SDK_TAVG_ROW + 2 * j) * npad + p0 + i] = as[j][i];\n"
                    "st[(SDK_TAVG_ROW + 2 * j + 1) * npad + p0 + i] = ae[j][i];\n");
  else
    sdk_em_text(em, "as[j][i] = st[(SDK_TAVG_ROW + 2 * j) * npad + p0 + i];\n"
                    "ae[j][i] = st[(SDK_TAVG_ROW + 2 * j + 1) * npad + p0 + i];\n");
  sdk_em_close(em);
}

/* --dt-check: the block's coarse path in (and, out = 1, back out): rows
 * SDK_DTC_ROW.. (codegen.h) */
static void emit_dtc_io(sdk_emit *em, const sdk_codegen_opts *o, int out) {
  if (!o->dt_check) return;
  sdk_cg_row_layout l;
  sdk_cg_rows(o, &l);
  int nn = o->model->nnoise;
  struct {
    const char *name;
    int row, n;
  } blk[] = {{"xcs", l.dtc, o->model->nvars},
             {"ccs", l.dtc_comp, o->model->nvars},
             {"zhs", l.dtc_z, nn},
             {"d0s", l.dtc_d0, o->model->nvars},
             {"acs", l.dtc_tavg, l.ntavg},
             {"aces", l.dtc_tavg + 1, l.ntavg},
             {"cbst", l.dtc_bound, SDK_CG_BOUND_ROWS}};
  for (size_t b = 0; b < sizeof blk / sizeof blk[0]; b++) {
    if (blk[b].row < 0 || blk[b].n == 0) continue;
    /* (the accumulators interleave: S at row 2 j, E at row 2 j + 1) */
    int stride = b == 4 || b == 5 ? 2 : 1;
    if (!out) sdk_em_line(em, "real %s[%d][SDK_BLK];", blk[b].name, blk[b].n);
    sdk_em_line(em, "for (int j = 0; j < %d; j++)", blk[b].n);
    if (out)
      sdk_em_line(
          em, "  for (int i = 0; i < SDK_BLK; i++) st[(%d + %d * j) * npad + p0 + i] = %s[j][i];",
          blk[b].row, stride, blk[b].name);
    else
      sdk_em_line(
          em, "  for (int i = 0; i < SDK_BLK; i++) %s[j][i] = st[(%d + %d * j) * npad + p0 + i];",
          blk[b].name, blk[b].row, stride);
  }
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
  for (int v = 0; o->compensate && v < nv; v++)
    sdk_em_line(em, "real sdk_c%d = ccs[%d][i];", v, v);
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
    sdk_em_line(em, "ccs[%d][i] = sdk_c%d;", v, v);
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
  *split = body->len;
  for (int v = 0; v < nv; v++)
    sdk_em_line(&be, "real sdk_x%d = xs[%d][i];", v, v);
  for (int v = 0; o->compensate && v < nv; v++)
    sdk_em_line(&be, "real sdk_c%d = cs[%d][i];", v, v);
  for (int j = 0; j < m->nnoise; j++)
    sdk_em_line(&be, "const real sdk_z%d = zb[zo + %d][i];", j, j);
  int bound = m->nbound > 0;
  if (bound) {
    sdk_em_line(&be, "real sdk_bs = bst[0][i], sdk_bl = bst[1][i], sdk_bh = bst[2][i];");
    sdk_cg_bound_pre(&be, o, 1);
    sdk_cg_bound_lane_decls(&be, o);
  }
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
    sdk_em_line(&be, "cs[%d][i] = sdk_c%d;", v, v);
  if (o->tavg) { /* the state after step n is state n + 1 (codegen.h) */
    sdk_em_line(&be, "if (n >= SDK_TAVG_FROM)");
    sdk_cg_tavg_add(&be, o, "sdk_x%d", "as[%d][i]", "ae[%d][i]", "n + 1");
  }
  if (o->dt_check) emit_coarse(&be, o);
}

/* the steps of a sub-chunk: time-only values once per step (hoisted), then
 * the block's paths */
static void emit_substeps(sdk_emit *em, const sdk_codegen_opts *o) {
  sdk_em_open(em, "for (sdk_i64 ss = 0; ss < ns; ss++)");
  sdk_em_line(em, "const sdk_i64 n = step0 + s + ss;");
  if (o->model->nnoise > 0) sdk_em_line(em, "const sdk_i64 zo = n * SDK_NN - b0 * 4;");
  /* the per-path body first, to learn which time-only values it uses */
  sdk_cg_hoist h;
  sdk_cg_hoist_init(&h, o, o->dt_column < 0);
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
  } else {
    sdk_em_line(em, "#pragma omp simd");
  }
  sdk_em_open(em, "for (int i = 0; i < SDK_BLK; i++)");
  sdk_em_append_range(em, &body, 0, split);
  if (!h.enabled) sdk_cg_step_time(em, o, "n", "");
  sdk_em_append_range(em, &body, split, body.len);
  sdk_sb_free(&body);
  sdk_em_close(em); /* simd loop */
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
  if (h.enabled) sdk_em_line(em, "}");
  sdk_em_close(em);
}

void sdk_cg_cpu_paths(sdk_emit *em, const sdk_codegen_opts *o) {
  sdk_em_puts(em, "\n");
  sdk_em_open(em, "void sdk_advance(real *restrict st, sdk_i64 npad, const real *restrict sv, "
                  "sdk_i64 ppg, sdk_i64 ngrid, sdk_i64 path0, sdk_i64 step0, sdk_i64 nsteps, "
                  "sdk_u64 sdk_seed, int nthreads)");
  sdk_em_text(em, "const sdk_i64 nblk = npad / SDK_BLK;\n"
                  "#pragma omp parallel for schedule(static) num_threads(sdk_threads(nthreads))\n");
  sdk_em_open(em, "for (sdk_i64 blk = 0; blk < nblk; blk++)");
  sdk_em_text(em, "real xs[SDK_NV][SDK_BLK];\n"
                  "real spv[SDK_NSV][SDK_BLK];\n"
                  "real zb[SDK_ZROWS][SDK_BLK];\n"
                  "const sdk_i64 p0 = blk * SDK_BLK;\n");
  emit_state_io(em, o, 0);
  emit_tavg_io(em, o, 0);
  emit_dtc_io(em, o, 0);
  sdk_em_text(em, "for (int i = 0; i < SDK_BLK; i++) {\n"
                  "  sdk_i64 g = (path0 + p0 + i) / ppg; if (g >= ngrid) g = ngrid - 1;\n"
                  "  for (int j = 0; j < SDK_NSV; j++) spv[j][i] = sv ? sv[g * SDK_NSV + j] : 0;\n"
                  "}\n");
  sdk_em_open(em, "for (sdk_i64 s = 0; s < nsteps; s += SDK_SUB)");
  sdk_em_line(em, "const sdk_i64 ns = nsteps - s < SDK_SUB ? nsteps - s : SDK_SUB;");
  if (o->model->nbound > 0) {
    /* a block whose paths are all absorbed has nothing left to do */
    sdk_em_line(em, "int sdk_alive = 0;");
    if (o->dt_check) /* (or whose coarse copies are too) */
      sdk_em_line(em, "for (int i = 0; i < SDK_BLK; i++) sdk_alive |= bst[0][i] == (real)0 || "
                      "cbst[0][i] == (real)0;");
    else
      sdk_em_line(em, "for (int i = 0; i < SDK_BLK; i++) sdk_alive |= bst[0][i] == (real)0;");
    sdk_em_line(em, "if (!sdk_alive) break;");
  }
  if (o->model->nnoise > 0) emit_noise_draw(em, o);
  emit_substeps(em, o);
  sdk_em_close(em);
  emit_state_io(em, o, 1);
  emit_tavg_io(em, o, 1);
  emit_dtc_io(em, o, 1);
  sdk_em_close(em);
  sdk_em_close(em);
}
