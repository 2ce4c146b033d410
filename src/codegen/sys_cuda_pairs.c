/* The CUDA step kernels of pair models: all pairs, tiled (the paper's PROG2).
 * sdk_sys_step: one particle per thread, the system's x_n pass through shared
 * memory in tiles of SDK_STPB particles (sys_cuda.c has the contract); with
 * odd or even pair functions also sdk_sys_half, sdk_sys_edge and
 * sdk_sys_step_half, each unordered pair once with the same bits (below). */
#include <stdio.h>

#include "codegen/abi.h"
#include "codegen/common.h"
#include "codegen/expr_emit.h"
#include "codegen/sys_cuda.h"

/* the particle's noise: its lane of its quad's Philox block (stream domain 3) */
static void emit_noise(sdk_emit *em, const sdk_codegen_opts *o) {
  int nn = o->model->nnoise;
  sdk_em_line(em, "real sdk_zv[%d];", nn);
  sdk_em_open(em, "if (sdk_mode)");
  sdk_em_text(em, "const sdk_u64 sdk_q = (sdk_u64)sdk_s * (sdk_u64)((sdk_N + 3) >> 2) + "
                  "(sdk_u64)(sdk_li >> 2);\n"
                  "const int sdk_lane = (int)(sdk_li & 3);\n");
  static const char *const w[4] = {"sdk_ph[0][0]", "sdk_ph[0][1]", "sdk_ph[0][2]", "sdk_ph[0][3]"};
  for (int j = 0; j < nn; j++) {
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
  sdk_em_close(em);
}

/* the kernel up to the pair sums: particle i's state, noise and parameters;
 * half: sdk_sys_step_half, which reads the tiles' pair sums of sdk_sys_half */
static void emit_head(sdk_emit *em, const sdk_codegen_opts *o, int half) {
  const sdk_model *m = o->model;
  if (half) {
    sdk_cg_sys_step_head(em, "sdk_sys_step_half", ", const real *__restrict__ sdk_psum");
  } else {
    sdk_cg_sys_step_head(em, "sdk_sys_step", "");
    /* (16-byte aligned: x_j is read four at a time, see emit_tile) */
    sdk_em_line(em, "__shared__ __align__(16) real sdk_sx[%d][SDK_STPB];", m->nvars);
  }
  int npj = 0;
  for (int k = 0; k < m->npart; k++)
    if (sdk_cg_pair_uses(m, SDK_OTHER_PARTJ, k) && !sdk_cg_part_const(o, k)) npj++;
  if (npj > 0 && !half) sdk_em_line(em, "__shared__ real sdk_spj[%d][SDK_STPB];", m->npart);
  sdk_cg_sys_prologue(em, o, 1);
  sdk_cg_bind_coupling(
      em, m, 0, "sdk_mode ? (real)(sdk_sums_in[sdk_s * SDK_NRED + %d] * sdk_invN) : (real)0");
  sdk_em_text(em,
              "real sdk_acc[SDK_NRED];\n"
              "#pragma unroll\n"
              "for (int sdk_k = 0; sdk_k < SDK_NRED; sdk_k++) sdk_acc[sdk_k] = (real)0;\n"
              "const sdk_i64 sdk_li = (sdk_i64)sdk_c * SDK_STPB + sdk_tid; /* in the system */\n"
              "const int sdk_act = sdk_li < sdk_N;\n"
              "const sdk_i64 sdk_gp = sdk_s * sdk_N + (sdk_act ? sdk_li : 0);\n");
  for (int v = 0; v < m->nvars; v++)
    sdk_em_line(em, "real sdk_x%d = sdk_st_in[%d * sdk_npad + sdk_gp];", v, v);
  if (m->nnoise > 0) emit_noise(em, o);
  sdk_cg_sys_draw_params(em, o);
}

/* the pairs with the particles of a tile: a full tile in groups of 8
 * (unrolled; pass 0), a partial one one by one (pass 1) */
static void emit_tile(sdk_emit *em, const sdk_codegen_opts *o, int pass) {
  const sdk_model *m = o->model;
  int nv = m->nvars;
  if (pass == 0) {
    sdk_em_open(em, "if (sdk_cntj == SDK_STPB)");
    sdk_em_line(em, "#pragma unroll 1");
    sdk_em_open(em, "for (int sdk_j8 = 0; sdk_j8 < SDK_STPB; sdk_j8 += 8)");
  } else {
    sdk_em_reopen(em, "else");
    sdk_em_open(em, "for (int sdk_j8 = 0; sdk_j8 < sdk_cntj; sdk_j8++)");
  }
  int nu = pass == 0 ? 8 : 1;
  /* whole tiles: the eight x_j of a group by two 16-byte loads (shared memory
   * and the special-function unit share one issue queue: four scalar loads
   * per vector load measured 2% slower, and slower than the paper's PROG2) */
  for (int v = 0; pass == 0 && v < nv; v++) {
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
      if (pass == 0)
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
  sdk_em_close(em);
}

/* F_i = (1/N) sum_j f(x_i, x_j): tiles of the system's x_n in shared memory
 * or (half) the tiles' sums of sdk_sys_half and sdk_sys_edge, in the same order */
static void emit_pair_sums(sdk_emit *em, const sdk_codegen_opts *o, int half) {
  const sdk_model *m = o->model;
  int npair = m->npair;
  sdk_em_line(em, "double sdk_F[%d];", npair);
  for (int k = 0; k < npair; k++)
    sdk_em_line(em, "sdk_F[%d] = 0.0;", k);
  sdk_em_open(em, "if (sdk_mode)");
  sdk_em_line(em, "const int sdk_ntile = (int)((sdk_N + SDK_STPB - 1) / SDK_STPB);");
  if (half) {
    sdk_em_open(em, "if (sdk_act)");
    sdk_em_line(em,
                "const real *sdk_pq = sdk_psum + sdk_s * %d * (sdk_i64)sdk_ntile * sdk_N + sdk_li;",
                npair);
    sdk_em_open(em, "for (int sdk_tile = 0; sdk_tile < sdk_ntile; sdk_tile++)");
    for (int k = 0; k < npair; k++)
      sdk_em_line(em, "sdk_F[%d] += (double)sdk_pq[((sdk_i64)%d * sdk_ntile + sdk_tile) * sdk_N];",
                  k, k);
    sdk_em_close(em);
    sdk_em_close(em);
    sdk_em_close(em);
    return;
  }
  sdk_em_open(em, "for (int sdk_tile = 0; sdk_tile < sdk_ntile; sdk_tile++)");
  sdk_em_text(em, "const sdk_i64 sdk_lj = (sdk_i64)sdk_tile * SDK_STPB + sdk_tid;\n"
                  "__syncthreads();\n");
  sdk_em_open(em, "if (sdk_lj < sdk_N)");
  sdk_em_line(em, "const sdk_i64 sdk_q = sdk_s * sdk_N + sdk_lj;");
  for (int v = 0; v < m->nvars; v++)
    sdk_em_line(em, "sdk_sx[%d][sdk_tid] = sdk_st_in[%d * sdk_npad + sdk_q];", v, v);
  for (int k = 0; k < m->npart; k++) {
    if (!sdk_cg_pair_uses(m, SDK_OTHER_PARTJ, k) || sdk_cg_part_const(o, k)) continue;
    char dst[64];
    snprintf(dst, sizeof dst, "sdk_spj[%d][sdk_tid]", k);
    sdk_cg_part_draw(em, o, k, "sdk_q", dst);
  }
  sdk_em_close(em);
  sdk_em_text(em, "__syncthreads();\n"
                  "const int sdk_cntj = (int)(sdk_N - (sdk_i64)sdk_tile * SDK_STPB < SDK_STPB ? "
                  "sdk_N - (sdk_i64)sdk_tile * SDK_STPB : SDK_STPB);\n");
  for (int k = 0; k < npair; k++)
    sdk_em_line(em, "real sdk_a%d = (real)0;", k);
  sdk_cg_sys_bind_state(em, o, 0);
  emit_tile(em, o, 0);
  emit_tile(em, o, 1);
  sdk_em_close(em); /* the if / else of the tiles */
  for (int k = 0; k < npair; k++)
    sdk_em_line(em, "sdk_F[%d] += (double)sdk_a%d;", k, k);
  sdk_em_close(em);
  sdk_em_close(em);
}

/* ---- each unordered pair once (odd or even pair functions, pair_sym.c) ----
 *
 * The full loop above gives particle i, for every tile J, the float sum
 *   P[J][i] = f(x_i, x_j0) + f(x_i, x_j0+1) + ...   (j ascending in J),
 * then F_i = sum over J ascending of P[J][i] in double.  sdk_sys_half writes
 * the same P[J][i] bit for bit with half the evaluations of f: a warp owns
 * a full tile I (lane l its rows 8l..8l+7) and a stream of full tiles
 * J = I + d (mod nfull), d in [d0, d1) (work list: each unordered pair of
 * tiles once, d = 0 the tile with itself); the columns of J come in blocks
 * of 4 and flow through the lanes, lane l working on block tau - l at step
 * tau, each block carrying its four column sums from lane to lane.  So row
 * i adds j ascending and column j adds i ascending, as the full loop does
 * for i and for j, and column j adds -f(x_i, x_j) (odd f) or f(x_i, x_j)
 * (even f), which is exactly the f(x_j, x_i) the full loop computes for j.
 * Sums are SDK_PADD/SDK_PSUB (no contraction into a fused multiply-add,
 * here or in the full loop).  sdk_sys_edge does the pairs of a last, partial
 * tile the full loop's way; sdk_sys_step_half then adds P[J][i] over J. */
#define HALF_ROWS 8 /* rows per lane: 32 lanes hold one tile of SDK_STPB */
#define HALF_COLS 4 /* columns per block flowing through the lanes */

/* the head of sdk_sys_half / sdk_sys_edge (bounds: threads per block; extra:
 * parameters before sdk_psum) */
static void emit_half_args(sdk_emit *em, const char *name, const char *bounds, const char *extra) {
  sdk_em_printf(em,
                "\nextern \"C\" __global__ void __launch_bounds__(%s)\n"
                "%s(const real *__restrict__ sdk_st_in, sdk_i64 sdk_npad, const real "
                "*__restrict__ sdk_sv, sdk_i64 sdk_N,\n"
                "    sdk_i64 sdk_spg, sdk_i64 sdk_nsys, sdk_i64 sdk_n, %sreal *sdk_psum) {\n",
                bounds, name, extra);
  em->depth++;
  sdk_em_text(em, "const int sdk_nfull = (int)(sdk_N / SDK_STPB), "
                  "sdk_ntile = (int)((sdk_N + SDK_STPB - 1) / SDK_STPB);\n"
                  "(void)sdk_nsys;\n");
}

/* the system's parameters, times and constant particle parameters (the
 * others are not used by pair functions of a half-kernel module) */
static void emit_half_scope(sdk_emit *em, const sdk_codegen_opts *o) {
  sdk_em_text(em, "const sdk_i64 sdk_g = sdk_s / sdk_spg, sdk_base = sdk_s * sdk_N;\n"
                  "(void)sdk_g;\n");
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

static void emit_half(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  int nv = m->nvars, np = m->npair;
  /* column j takes -f (odd f) or f (even f) */
  const char *colop[SDK_MODEL_MAX_PAIR];
  for (int k = 0; k < np && k < SDK_MODEL_MAX_PAIR; k++)
    colop[k] = sdk_cg_pair_parity(m->pair[k]) < 0 ? "SDK_PSUB" : "SDK_PADD";
  emit_half_args(em, "sdk_sys_half", "32 * SDK_HALF_WPB",
                 "const int *__restrict__ sdk_work, int sdk_nwork, ");
  sdk_em_text(em,
              "const sdk_i64 sdk_w = (sdk_i64)blockIdx.x * SDK_HALF_WPB + (threadIdx.x >> 5);\n"
              "if (sdk_w >= sdk_nsys * sdk_nwork) return;\n"
              "const sdk_i64 sdk_s = sdk_w / sdk_nwork;\n"
              "const int sdk_it = (int)(sdk_w - sdk_s * sdk_nwork), sdk_lane = threadIdx.x & 31;\n"
              "const int sdk_I = sdk_work[3 * sdk_it], sdk_d0 = sdk_work[3 * sdk_it + 1], "
              "sdk_d1 = sdk_work[3 * sdk_it + 2];\n");
  emit_half_scope(em, o);
  sdk_em_line(em, "real *sdk_ps = sdk_psum + sdk_s * %d * (sdk_i64)sdk_ntile * sdk_N;", np);
  sdk_em_line(em, "const sdk_i64 sdk_row = sdk_base + (sdk_i64)sdk_I * SDK_STPB + %d * sdk_lane;",
              HALF_ROWS);
  for (int v = 0; v < nv; v++)
    for (int r = 0; r < HALF_ROWS; r++)
      sdk_em_line(em, "const real sdk_r%d_%d = sdk_st_in[%d * sdk_npad + sdk_row + %d];", v, r, v,
                  r);
  for (int k = 0; k < np; k++) {
    for (int r = 0; r < HALF_ROWS; r++)
      sdk_em_line(em, "real sdk_ai%d_%d = (real)0;", k, r);
    for (int c = 0; c < HALF_COLS; c++)
      sdk_em_line(em, "real sdk_aj%d_%d = (real)0;", k, c);
  }
  sdk_em_line(em, "const int sdk_K = (sdk_d1 - sdk_d0) * (SDK_STPB / %d);", HALF_COLS);
  sdk_em_open(em, "for (int sdk_tau = 0; sdk_tau < sdk_K + 31; sdk_tau++)");
  sdk_em_line(em, "const int sdk_b = sdk_tau - sdk_lane;");
  sdk_em_open(em, "if (sdk_b >= 0 && sdk_b < sdk_K)");
  sdk_em_line(
      em, "const int sdk_d = sdk_d0 + sdk_b / (SDK_STPB / %d), sdk_cb = sdk_b %% (SDK_STPB / %d);",
      HALF_COLS, HALF_COLS);
  sdk_em_text(em, "int sdk_J = sdk_I + sdk_d;\n"
                  "if (sdk_J >= sdk_nfull) sdk_J -= sdk_nfull;\n");
  sdk_em_line(em, "const sdk_i64 sdk_q = sdk_base + (sdk_i64)sdk_J * SDK_STPB + %d * sdk_cb;",
              HALF_COLS);
  for (int v = 0; v < nv; v++)
    for (int c = 0; c < HALF_COLS; c++)
      sdk_em_line(em, "const real sdk_c%d_%d = __ldg(&sdk_st_in[%d * sdk_npad + sdk_q + %d]);", v,
                  c, v, c);
  for (int r = 0; r < HALF_ROWS; r++)
    for (int c = 0; c < HALF_COLS; c++) {
      sdk_em_block(em);
      for (int v = 0; v < nv; v++)
        sdk_em_line(em, "const real sdk_x%d = sdk_r%d_%d, sdk_xj%d = sdk_c%d_%d; (void)sdk_xj%d;",
                    v, v, r, v, v, c, v);
      emit_pair_values(em, o);
      for (int k = 0; k < np; k++)
        sdk_em_line(em,
                    "sdk_ai%d_%d = SDK_PADD(sdk_ai%d_%d, sdk_v%d); "
                    "sdk_aj%d_%d = %s(sdk_aj%d_%d, sdk_v%d);",
                    k, r, k, r, k, k, c, colop[k], k, c, k);
      sdk_em_close(em);
    }
  /* row i's sum over tile J is complete */
  sdk_em_open(em, "if (sdk_cb == SDK_STPB / %d - 1)", HALF_COLS);
  for (int k = 0; k < np; k++) {
    sdk_em_line(em,
                "real *sdk_o%d = sdk_ps + ((sdk_i64)%d * sdk_ntile + sdk_J) * sdk_N + "
                "(sdk_i64)sdk_I * SDK_STPB + %d * sdk_lane;",
                k, k, HALF_ROWS);
    for (int r = 0; r < HALF_ROWS; r++)
      sdk_em_line(em, "sdk_o%d[%d] = sdk_ai%d_%d; sdk_ai%d_%d = (real)0;", k, r, k, r, k, r);
  }
  sdk_em_close(em);
  /* column j's sum over tile I is complete in the last lane (the tile with
   * itself: the rows have them) */
  sdk_em_open(em, "if (sdk_lane == 31 && sdk_d != 0)");
  for (int k = 0; k < np; k++) {
    sdk_em_line(em,
                "real *sdk_o%d = sdk_ps + ((sdk_i64)%d * sdk_ntile + sdk_I) * sdk_N + "
                "(sdk_i64)sdk_J * SDK_STPB + %d * sdk_cb;",
                k, k, HALF_COLS);
    for (int c = 0; c < HALF_COLS; c++)
      sdk_em_line(em, "sdk_o%d[%d] = sdk_aj%d_%d;", k, c, k, c);
  }
  sdk_em_close(em);
  sdk_em_close(em);
  for (int k = 0; k < np; k++)
    for (int c = 0; c < HALF_COLS; c++)
      sdk_em_line(em, "sdk_aj%d_%d = __shfl_up_sync(0xffffffffu, sdk_aj%d_%d, 1);", k, c, k, c);
  sdk_em_open(em, "if (sdk_lane == 0)");
  for (int k = 0; k < np; k++)
    for (int c = 0; c < HALF_COLS; c++)
      sdk_em_line(em, "sdk_aj%d_%d = (real)0;", k, c);
  sdk_em_close(em);
  sdk_em_close(em);
  sdk_em_close(em);
}

/* the pairs of the last, partial tile: block e < ntile, rows of tile e
 * against the columns of the partial tile; block ntile + J, rows of the
 * partial tile against the full tile J; one row per thread, as the full loop */
static void emit_edge(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  int nv = m->nvars, np = m->npair;
  emit_half_args(em, "sdk_sys_edge", "SDK_STPB", "");
  sdk_em_text(em, "const int sdk_nb = sdk_ntile + sdk_nfull, sdk_tid = threadIdx.x;\n"
                  "const sdk_i64 sdk_s = blockIdx.x / sdk_nb;\n"
                  "const int sdk_e = (int)(blockIdx.x - sdk_s * sdk_nb);\n"
                  "const int sdk_ti = sdk_e < sdk_ntile ? sdk_e : sdk_nfull, "
                  "sdk_tj = sdk_e < sdk_ntile ? sdk_nfull : sdk_e - sdk_ntile;\n");
  sdk_em_line(em, "__shared__ real sdk_sx[%d][SDK_STPB];", nv);
  emit_half_scope(em, o);
  sdk_em_text(em, "const sdk_i64 sdk_li = (sdk_i64)sdk_ti * SDK_STPB + sdk_tid, "
                  "sdk_lj = (sdk_i64)sdk_tj * SDK_STPB + sdk_tid;\n");
  sdk_em_open(em, "if (sdk_lj < sdk_N)");
  for (int v = 0; v < nv; v++)
    sdk_em_line(em, "sdk_sx[%d][sdk_tid] = sdk_st_in[%d * sdk_npad + sdk_base + sdk_lj];", v, v);
  sdk_em_close(em);
  sdk_em_text(em, "__syncthreads();\n"
                  "if (sdk_li >= sdk_N) return;\n"
                  "const int sdk_cntj = (int)(sdk_N - (sdk_i64)sdk_tj * SDK_STPB < SDK_STPB ? "
                  "sdk_N - (sdk_i64)sdk_tj * SDK_STPB : SDK_STPB);\n");
  for (int v = 0; v < nv; v++)
    sdk_em_line(em, "const real sdk_x%d = sdk_st_in[%d * sdk_npad + sdk_base + sdk_li];", v, v);
  for (int k = 0; k < np; k++)
    sdk_em_line(em, "real sdk_a%d = (real)0;", k);
  sdk_em_open(em, "for (int sdk_jj = 0; sdk_jj < sdk_cntj; sdk_jj++)");
  for (int v = 0; v < nv; v++)
    sdk_em_line(em, "const real sdk_xj%d = sdk_sx[%d][sdk_jj]; (void)sdk_xj%d;", v, v, v);
  emit_pair_values(em, o);
  for (int k = 0; k < np; k++)
    sdk_em_line(em, "sdk_a%d = SDK_PADD(sdk_a%d, sdk_v%d);", k, k, k);
  sdk_em_close(em);
  for (int k = 0; k < np; k++)
    sdk_em_line(em,
                "sdk_psum[((sdk_s * %d + %d) * sdk_ntile + sdk_tj) * sdk_N + sdk_li] = sdk_a%d;",
                np, k, k);
  sdk_em_close(em);
}

/* the step kernel: sdk_sys_step (the pairs' full loop) or sdk_sys_step_half */
static void emit_step(sdk_emit *em, const sdk_codegen_opts *o, const sdk_cg_red *red, int half) {
  const sdk_model *m = o->model;
  emit_head(em, o, half);
  emit_pair_sums(em, o, half);
  sdk_cg_bind_coupling(em, m, 1, "(real)(sdk_F[%d] * sdk_invN)");
  /* the step, into the other state buffer */
  sdk_em_open(em, "if (sdk_mode)");
  for (int j = 0; j < m->nnoise; j++)
    sdk_em_line(em, "const real sdk_z%d = sdk_zv[%d];", j, j);
  o->scheme->emit_step(em, o, NULL);
  for (int v = 0; v < m->nvars; v++)
    sdk_em_line(em, "if (sdk_act) sdk_st_out[%d * sdk_npad + sdk_gp] = sdk_x%d;", v, v);
  sdk_em_close(em);
  sdk_cg_sys_accumulate(em, o, red);
  sdk_em_line(em, "sdk_sys_block_sum(sdk_acc, sdk_sred, sdk_part + sdk_gb * SDK_NRED, "
                  "0);");
  sdk_cg_sys_step_end(em, red);
}

void sdk_cg_sys_pairs(sdk_emit *em, const sdk_codegen_opts *o, const sdk_cg_red *red) {
  char why[160]; /* (the reason names model entries: it stays out of the source) */
  int half = sdk_cg_pair_half_ok(o, why, sizeof why);
  /* sums of pair values: plain additions, never fused with a product (the
   * half kernel's sums must be the full loop's bit for bit) */
  sdk_em_line(em, "#define SDK_PADD(a, v) %s(a, v)", o->single ? "__fadd_rn" : "__dadd_rn");
  sdk_em_line(em, "#define SDK_PSUB(a, v) %s(a, v)", o->single ? "__fsub_rn" : "__dsub_rn");
  emit_step(em, o, red, 0);
  if (half) {
    sdk_em_line(em, "#define SDK_HALF_WPB %d", SDK_CUDA_HALF_WPB);
    emit_half(em, o);
    emit_edge(em, o);
    emit_step(em, o, red, 1);
  } else {
    sdk_em_puts(em, "/* each pair evaluated twice: the [pair] functions are not proven odd or "
                    "even under exchanging the particles, or the half kernel does not take them "
                    "(codegen/pair_sym.c) */\n");
  }
}
