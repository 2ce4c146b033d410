/* The CUDA step kernel of pair models: all pairs, tiled (the paper's PROG2).
 * One particle per thread; the system's x_n pass through shared memory in
 * tiles of SDK_STPB particles (sys_cuda.c has the contract). */
#include <stdio.h>

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
    sdk_cg_noise(o)->emit_word_lane(em, w, "sdk_lane", dst);
    sdk_em_close(em);
  }
  sdk_em_close(em);
}

/* the kernel up to the pair sums: particle i's state, noise and parameters */
static void emit_head(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  sdk_cg_sys_step_head(em);
  /* (16-byte aligned: x_j is read four at a time, see emit_tile) */
  sdk_em_line(em, "__shared__ __align__(16) real sdk_sx[%d][SDK_STPB];", m->nvars);
  int npj = 0;
  for (int k = 0; k < m->npart; k++)
    if (sdk_cg_pair_uses(m, SDK_OTHER_PARTJ, k) && !sdk_cg_part_const(o, k)) npj++;
  if (npj > 0) sdk_em_line(em, "__shared__ real sdk_spj[%d][SDK_STPB];", m->npart);
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
      sdk_em_start(em, "sdk_a%d += ", k);
      sdk_cg_expr(em, o, m->pair[k], m->pair_line[k]);
      sdk_em_puts(em, ";\n");
    }
    sdk_em_close(em);
  }
  sdk_em_close(em);
}

/* F_i = (1/N) sum_j f(x_i, x_j): tiles of the system's x_n in shared memory */
static void emit_pair_sums(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  int npair = m->npair;
  sdk_em_line(em, "double sdk_F[%d];", npair);
  for (int k = 0; k < npair; k++)
    sdk_em_line(em, "sdk_F[%d] = 0.0;", k);
  sdk_em_open(em, "if (sdk_mode)");
  sdk_em_line(em, "const int sdk_ntile = (int)((sdk_N + SDK_STPB - 1) / SDK_STPB);");
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

void sdk_cg_sys_pairs(sdk_emit *em, const sdk_codegen_opts *o, const sdk_cg_red *red) {
  const sdk_model *m = o->model;
  emit_head(em, o);
  emit_pair_sums(em, o);
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
