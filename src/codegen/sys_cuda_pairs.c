/* The CUDA step kernels of pair models: all pairs, tiled (the paper's PROG2).
 * sdk_sys_step: one particle per thread, the system's x_n pass through shared
 * memory in tiles of SDK_STPB particles (sys_cuda.c has the contract;
 * kernels/sys_step.cuh); with odd or even pair functions also sdk_sys_half,
 * sdk_sys_edge (kernels/sys_half.cuh, which explains them) and
 * sdk_sys_step_half, each unordered pair once with the same bits.  This file
 * writes the code of their hooks: what depends on the model. */
#include <stdio.h>

#include "codegen/abi.h"
#include "codegen/common.h"
#include "codegen/expr_emit.h"
#include "codegen/sys_cuda.h"

extern const char sdk_embedded_sys_half_cuh[];

#define HALF_ROWS 8 /* rows per lane: 32 lanes hold one tile of SDK_STPB */
#define HALF_COLS 4 /* columns per block flowing through the lanes */

/* what the hooks write from */
typedef struct {
  const sdk_codegen_opts *o;
  const sdk_cg_red *red;
  int half; /* sdk_sys_step_half */
} pair_ctx;

static const sdk_codegen_opts *opts(const void *c) {
  return ((const pair_ctx *)c)->o;
}

static const sdk_model *model(const void *c) {
  return opts(c)->model;
}

/* sys_step.cuh: the parameters, times and mean fields of the system, the
 * tiles' particle parameters of particle j */
static void hook_scope(sdk_emit *em, const void *c) {
  const sdk_codegen_opts *o = opts(c);
  const sdk_model *m = o->model;
  int npj = 0;
  for (int k = 0; k < m->npart; k++)
    if (sdk_cg_pair_uses(m, SDK_OTHER_PARTJ, k) && !sdk_cg_part_const(o, k)) npj++;
  if (npj > 0 && !((const pair_ctx *)c)->half)
    sdk_em_line(em, "__shared__ real sdk_spj[%d][SDK_STPB];", m->npart);
  sdk_cg_sys_prologue(em, o, 1);
  sdk_cg_bind_coupling(
      em, m, 0, "sdk_mode ? (real)(sdk_sums_in[sdk_s * SDK_NRED + %d] * sdk_invN) : (real)0");
}

/* sys_step.cuh: particle i's x_n, its noise and its parameters */
static void hook_particle(sdk_emit *em, const void *c) {
  const sdk_model *m = model(c);
  for (int v = 0; v < m->nvars; v++)
    sdk_em_line(em, "real sdk_x%d = sdk_st_in[%d * sdk_npad + sdk_gp];", v, v);
}

static void hook_noise(sdk_emit *em, const void *c) {
  const sdk_codegen_opts *o = opts(c);
  const sdk_model *m = o->model;
  static const char *const w[4] = {"sdk_ph[0][0]", "sdk_ph[0][1]", "sdk_ph[0][2]", "sdk_ph[0][3]"};
  for (int j = 0; j < m->nnoise; j++) {
    sdk_em_block(em);
    sdk_em_line(em, "const sdk_u64 sdk_k = (sdk_u64)sdk_n * SDK_NN + %d;", j);
    sdk_em_line(em, "sdk_u32 sdk_ph[1][4];");
    sdk_em_line(em, "sdk_philox_counter(sdk_ph[0], sdk_q, sdk_k, 3u);");
    sdk_em_line(em, "sdk_philox_blocks(sdk_ph, 1, sdk_seed);");
    char dst[32];
    snprintf(dst, sizeof dst, "sdk_zv[%d]", j);
    sdk_noise_lane(em, sdk_cg_noise(o), w, "sdk_lane", dst);
    sdk_em_close(em);
  }
}

static void hook_params(sdk_emit *em, const void *c) {
  sdk_cg_sys_draw_params(em, ((const pair_ctx *)c)->o);
}

/* sys_step.cuh: F = 0, F += the tiles' sums of sdk_sys_half, or a tile's */
static void hook_pair_zero(sdk_emit *em, const void *c) {
  const sdk_model *m = model(c);
  for (int k = 0; k < m->npair; k++)
    sdk_em_line(em, "sdk_F[%d] = 0.0;", k);
}

static void hook_pair_tile_sums(sdk_emit *em, const void *c) {
  const sdk_model *m = model(c);
  for (int k = 0; k < m->npair; k++)
    sdk_em_line(em, "sdk_F[%d] += (double)sdk_pq[((sdk_i64)%d * sdk_ntile + sdk_tile) * sdk_N];", k,
                k);
}

static void hook_tile_close(sdk_emit *em, const void *c) {
  const sdk_model *m = model(c);
  for (int k = 0; k < m->npair; k++)
    sdk_em_line(em, "sdk_F[%d] += (double)sdk_a%d;", k, k);
}

/* sys_step.cuh: x_j (and particle j's parameters) of a tile into shared memory */
static void hook_tile_load(sdk_emit *em, const void *c) {
  const sdk_codegen_opts *o = opts(c);
  const sdk_model *m = o->model;
  for (int v = 0; v < m->nvars; v++)
    sdk_em_line(em, "sdk_sx[%d][sdk_tid] = sdk_st_in[%d * sdk_npad + sdk_q];", v, v);
  for (int k = 0; k < m->npart; k++) {
    if (!sdk_cg_pair_uses(m, SDK_OTHER_PARTJ, k) || sdk_cg_part_const(o, k)) continue;
    char dst[64];
    snprintf(dst, sizeof dst, "sdk_spj[%d][sdk_tid]", k);
    sdk_cg_part_draw(em, o, k, "sdk_q", dst);
  }
}

/* sys_step.cuh: a tile's sums at 0, the names of particle i */
static void hook_tile_open(sdk_emit *em, const void *c) {
  const sdk_codegen_opts *o = opts(c);
  const sdk_model *m = o->model;
  for (int k = 0; k < m->npair; k++)
    sdk_em_line(em, "real sdk_a%d = (real)0;", k);
  sdk_cg_sys_bind_state(em, o, 0);
}

/* the pairs with particles sdk_j8 + u of a tile, u < nu (whole tiles: the
 * eight x_j by two 16-byte loads; shared memory and the special-function
 * unit share one issue queue: four scalar loads per vector load measured
 * 2% slower, and slower than the paper's PROG2) */
static void tile_pairs(sdk_emit *em, const pair_ctx *x, int nu) {
  const sdk_codegen_opts *o = x->o;
  const sdk_model *m = o->model;
  int nv = m->nvars;
  for (int v = 0; nu == 8 && v < nv; v++) {
    sdk_em_line(em, "real sdk_xq%d[8];", v);
    sdk_em_line(em,
                "SDK_LD4(&sdk_sx[%d][sdk_j8], sdk_xq%d[0], sdk_xq%d[1], sdk_xq%d[2], sdk_xq%d[3]);",
                v, v, v, v, v);
    sdk_em_line(em,
                "SDK_LD4(&sdk_sx[%d][sdk_j8 + 4], sdk_xq%d[4], sdk_xq%d[5], sdk_xq%d[6], "
                "sdk_xq%d[7]);",
                v, v, v, v, v);
  }
  for (int u = 0; u < nu; u++) {
    sdk_em_block(em);
    sdk_em_line(em, "const int sdk_jj = sdk_j8 + %d;", u);
    for (int v = 0; v < nv; v++) {
      if (nu == 8)
        sdk_em_line(em, "const real sdk_xj%d = sdk_xq%d[%d]; (void)sdk_xj%d;", v, v, u, v);
      else
        sdk_em_line(em, "const real sdk_xj%d = sdk_sx[%d][sdk_jj]; (void)sdk_xj%d;", v, v, v);
    }
    sdk_cg_part_bind(em, o, "sdk_spj[%d][sdk_jj]", 1);
    for (int k = 0; k < m->npair; k++) {
      sdk_em_start(em, "sdk_a%d = SDK_PADD(sdk_a%d, ", k, k);
      sdk_cg_expr(em, o, m->pair[k], m->pair_line[k]);
      sdk_em_puts(em, ");\n");
    }
    sdk_em_close(em);
  }
}

static void hook_tile_whole(sdk_emit *em, const void *c) {
  tile_pairs(em, c, 8);
}

static void hook_tile_part(sdk_emit *em, const void *c) {
  tile_pairs(em, c, 1);
}

/* sys_step.cuh: the pair fields, the step into the other state buffer, the
 * particle's terms of the sums */
static void hook_coupling(sdk_emit *em, const void *c) {
  const sdk_model *m = model(c);
  sdk_cg_bind_coupling(em, m, 1, "(real)(sdk_F[%d] * sdk_invN)");
}

static void hook_step(sdk_emit *em, const void *c) {
  const sdk_codegen_opts *o = opts(c);
  const sdk_model *m = o->model;
  for (int j = 0; j < m->nnoise; j++)
    sdk_em_line(em, "const real sdk_z%d = sdk_zv[%d];", j, j);
  o->scheme->emit_step(em, o, NULL);
  for (int v = 0; v < m->nvars; v++)
    sdk_em_line(em, "if (sdk_act) sdk_st_out[%d * sdk_npad + sdk_gp] = sdk_x%d;", v, v);
}

static void hook_accumulate(sdk_emit *em, const void *c) {
  const pair_ctx *x = c;
  sdk_cg_sys_accumulate(em, x->o, x->red);
}

/* the step kernel: sdk_sys_step (the pairs' full loop) or sdk_sys_step_half */
static void emit_step(sdk_emit *em, const pair_ctx *c) {
  static const sdk_em_hook hooks[] = {
      {"scope", hook_scope},
      {"particle", hook_particle},
      {"noise", hook_noise},
      {"params", hook_params},
      {"pair_zero", hook_pair_zero},
      {"pair_tile_sums", hook_pair_tile_sums},
      {"tile_load", hook_tile_load},
      {"tile_open", hook_tile_open},
      {"tile_whole", hook_tile_whole},
      {"tile_part", hook_tile_part},
      {"tile_close", hook_tile_close},
      {"coupling", hook_coupling},
      {"step", hook_step},
      {"accumulate", hook_accumulate},
  };
  sdk_cg_sys_step_kernel(em, 0, c->half, hooks, sizeof hooks / sizeof *hooks, c);
}

/* ---- sys_half.cuh: each unordered pair once ---- */

/* the system's parameters, times and constant particle parameters (the
 * others are not used by pair functions of a half-kernel module) */
static void hook_half_scope(sdk_emit *em, const void *c) {
  const sdk_codegen_opts *o = opts(c);
  sdk_cg_sys_prologue(em, o, 0);
  sdk_cg_part_bind(em, o, "((real)0 * %d)", 0);
}

/* the pair functions at (sdk_x<v>, sdk_xj<v>) into value names sdk_v<k> */
static void emit_pair_values(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  sdk_cg_part_bind(em, o, "((real)0 * %d)", 1);
  sdk_cg_sys_bind_state(em, o, 0);
  for (int k = 0; k < m->npair; k++) {
    sdk_em_start(em, "const real sdk_v%d = ", k);
    sdk_cg_expr(em, o, m->pair[k], m->pair_line[k]);
    sdk_em_puts(em, ";\n");
  }
}

/* the lane's rows of tile I, their sums and the column sums */
static void hook_rows(sdk_emit *em, const void *c) {
  const sdk_model *m = model(c);
  for (int v = 0; v < m->nvars; v++)
    for (int r = 0; r < HALF_ROWS; r++)
      sdk_em_line(em, "const real sdk_r%d_%d = sdk_st_in[%d * sdk_npad + sdk_row + %d];", v, r, v,
                  r);
  for (int k = 0; k < m->npair; k++) {
    for (int r = 0; r < HALF_ROWS; r++)
      sdk_em_line(em, "real sdk_ai%d_%d = (real)0;", k, r);
    for (int col = 0; col < HALF_COLS; col++)
      sdk_em_line(em, "real sdk_aj%d_%d = (real)0;", k, col);
  }
}

/* the columns of block cb of tile J, the pairs with the lane's rows: row
 * sums SDK_PADD, column j's -f (odd f) or f (even f) */
static void hook_pairs(sdk_emit *em, const void *c) {
  const sdk_codegen_opts *o = opts(c);
  const sdk_model *m = o->model;
  int nv = m->nvars, np = m->npair;
  for (int v = 0; v < nv; v++)
    for (int col = 0; col < HALF_COLS; col++)
      sdk_em_line(em, "const real sdk_c%d_%d = __ldg(&sdk_st_in[%d * sdk_npad + sdk_q + %d]);", v,
                  col, v, col);
  for (int r = 0; r < HALF_ROWS; r++)
    for (int col = 0; col < HALF_COLS; col++) {
      sdk_em_block(em);
      for (int v = 0; v < nv; v++)
        sdk_em_line(em, "const real sdk_x%d = sdk_r%d_%d, sdk_xj%d = sdk_c%d_%d; (void)sdk_xj%d;",
                    v, v, r, v, v, col, v);
      emit_pair_values(em, o);
      for (int k = 0; k < np; k++)
        sdk_em_line(em,
                    "sdk_ai%d_%d = SDK_PADD(sdk_ai%d_%d, sdk_v%d); "
                    "sdk_aj%d_%d = %s(sdk_aj%d_%d, sdk_v%d);",
                    k, r, k, r, k, k, col,
                    sdk_cg_pair_parity(m->pair[k]) < 0 ? "SDK_PSUB" : "SDK_PADD", k, col, k);
      sdk_em_close(em);
    }
}

/* row i's sums over tile J, column j's over tile I, into psum */
static void hook_rows_out(sdk_emit *em, const void *c) {
  const sdk_model *m = model(c);
  for (int k = 0; k < m->npair; k++) {
    sdk_em_line(em,
                "real *sdk_o%d = sdk_ps + ((sdk_i64)%d * sdk_ntile + sdk_J) * sdk_N + "
                "(sdk_i64)sdk_I * SDK_STPB + %d * sdk_lane;",
                k, k, HALF_ROWS);
    for (int r = 0; r < HALF_ROWS; r++)
      sdk_em_line(em, "sdk_o%d[%d] = sdk_ai%d_%d; sdk_ai%d_%d = (real)0;", k, r, k, r, k, r);
  }
}

static void hook_cols_out(sdk_emit *em, const void *c) {
  const sdk_model *m = model(c);
  for (int k = 0; k < m->npair; k++) {
    sdk_em_line(em,
                "real *sdk_o%d = sdk_ps + ((sdk_i64)%d * sdk_ntile + sdk_I) * sdk_N + "
                "(sdk_i64)sdk_J * SDK_STPB + %d * sdk_cb;",
                k, k, HALF_COLS);
    for (int col = 0; col < HALF_COLS; col++)
      sdk_em_line(em, "sdk_o%d[%d] = sdk_aj%d_%d;", k, col, k, col);
  }
}

/* the column sums to the next lane (lane 0 starts new ones) */
static void hook_shift(sdk_emit *em, const void *c) {
  const sdk_model *m = model(c);
  for (int k = 0; k < m->npair; k++)
    for (int col = 0; col < HALF_COLS; col++)
      sdk_em_line(em, "sdk_aj%d_%d = __shfl_up_sync(0xffffffffu, sdk_aj%d_%d, 1);", k, col, k, col);
}

static void hook_cols_zero(sdk_emit *em, const void *c) {
  const sdk_model *m = model(c);
  for (int k = 0; k < m->npair; k++)
    for (int col = 0; col < HALF_COLS; col++)
      sdk_em_line(em, "sdk_aj%d_%d = (real)0;", k, col);
}

/* sdk_sys_edge: x_j of the partial tile or of tile J, particle i, a pair,
 * particle i's sums */
static void hook_edge_load(sdk_emit *em, const void *c) {
  const sdk_model *m = model(c);
  for (int v = 0; v < m->nvars; v++)
    sdk_em_line(em, "sdk_sx[%d][sdk_tid] = sdk_st_in[%d * sdk_npad + sdk_base + sdk_lj];", v, v);
}

static void hook_edge_row(sdk_emit *em, const void *c) {
  const sdk_model *m = model(c);
  for (int v = 0; v < m->nvars; v++)
    sdk_em_line(em, "const real sdk_x%d = sdk_st_in[%d * sdk_npad + sdk_base + sdk_li];", v, v);
  for (int k = 0; k < m->npair; k++)
    sdk_em_line(em, "real sdk_a%d = (real)0;", k);
}

static void hook_edge_pair(sdk_emit *em, const void *c) {
  const sdk_codegen_opts *o = opts(c);
  const sdk_model *m = o->model;
  for (int v = 0; v < m->nvars; v++)
    sdk_em_line(em, "const real sdk_xj%d = sdk_sx[%d][sdk_jj]; (void)sdk_xj%d;", v, v, v);
  emit_pair_values(em, o);
  for (int k = 0; k < m->npair; k++)
    sdk_em_line(em, "sdk_a%d = SDK_PADD(sdk_a%d, sdk_v%d);", k, k, k);
}

static void hook_edge_out(sdk_emit *em, const void *c) {
  const sdk_model *m = model(c);
  for (int k = 0; k < m->npair; k++)
    sdk_em_line(em,
                "sdk_psum[((sdk_s * %d + %d) * sdk_ntile + sdk_tj) * sdk_N + sdk_li] = sdk_a%d;",
                m->npair, k, k);
}

void sdk_cg_sys_pairs(sdk_emit *em, const sdk_codegen_opts *o, const sdk_cg_red *red) {
  static const sdk_em_hook half[] = {
      {"scope", hook_half_scope},    {"rows", hook_rows},           {"pairs", hook_pairs},
      {"rows_out", hook_rows_out},   {"cols_out", hook_cols_out},   {"shift", hook_shift},
      {"cols_zero", hook_cols_zero}, {"edge_load", hook_edge_load}, {"edge_row", hook_edge_row},
      {"edge_pair", hook_edge_pair}, {"edge_out", hook_edge_out}};
  char why[160]; /* (the reason names model entries: it stays out of the source) */
  int half_ok = sdk_cg_pair_half_ok(o, why, sizeof why);
  /* sums of pair values: plain additions, never fused with a product (the
   * half kernel's sums must be the full loop's bit for bit) */
  sdk_em_line(em, "#define SDK_PADD(a, v) %s(a, v)", o->single ? "__fadd_rn" : "__dadd_rn");
  sdk_em_line(em, "#define SDK_PSUB(a, v) %s(a, v)", o->single ? "__fsub_rn" : "__dsub_rn");
  sdk_em_line(em, "#define SDK_NPAIR %d", o->model->npair);
  pair_ctx c = {o, red, 0};
  emit_step(em, &c);
  if (half_ok) {
    sdk_em_line(em, "#define SDK_HALF_WPB %d", SDK_CUDA_HALF_WPB);
    sdk_em_line(em, "#define SDK_HALF_ROWS %d", HALF_ROWS);
    sdk_em_line(em, "#define SDK_HALF_COLS %d", HALF_COLS);
    c.half = 1;
    sdk_em_kernel_hooks(em, sdk_embedded_sys_half_cuh, half, sizeof half / sizeof *half, &c);
    emit_step(em, &c);
  } else {
    sdk_em_puts(em, "/* each pair evaluated twice: the [pair] functions are not proven odd or "
                    "even under exchanging the particles, or the half kernel does not take them "
                    "(codegen/pair_sym.c) */\n");
  }
}
