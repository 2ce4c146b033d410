/* The parts of the CUDA system kernels shared by both model kinds (sys_cuda.h). */
#include <stdio.h>

#include "codegen/expr_emit.h"
#include "codegen/sys_cuda.h"

/* The kernel head shared by both model kinds, and the tail after the group:
 * the last block of the system forms its sums (and the order parameter). */
static const char STEP_HEAD[] =
    "\nextern \"C\" __global__ void __launch_bounds__(SDK_STPB, SDK_MINB)\n"
    "%s(const real *sdk_st_in, real *sdk_st_out, sdk_i64 sdk_npad, const real "
    "*__restrict__ sdk_sv,\n"
    "             sdk_i64 sdk_ppg, sdk_i64 sdk_N, sdk_i64 sdk_spg, int sdk_nchunk, int sdk_nblk, "
    "int sdk_cpb, sdk_i64 sdk_n,\n"
    "             sdk_u64 sdk_seed, int sdk_mode, const double *__restrict__ sdk_sums_in, double "
    "*sdk_sums_out,\n"
    "             double *sdk_part, unsigned *sdk_cnt, double *sdk_zsys, unsigned *sdk_gcnt, "
    "double *sdk_obs_row,\n"
    "             sdk_i64 sdk_b0%s) {\n"
    "  __shared__ double sdk_sred[2 * SDK_STPB / 32][SDK_NRED];\n"
    "  __shared__ double sdk_sz[SDK_STPB / 32][4];\n"
    "  __shared__ double sdk_stot[SDK_NRED];\n"
    "  __shared__ int sdk_slast;\n"
    "  const int sdk_tid = threadIdx.x;\n"
    "  /* the group: b0 + block (b0 > 0: a shard of the groups, systems spanning MPI ranks) */\n"
    "  const sdk_i64 sdk_gb = sdk_b0 + (sdk_i64)blockIdx.x;\n"
    "  const sdk_i64 sdk_s = sdk_gb / sdk_nblk;\n"
    "  const int sdk_c = (int)(sdk_gb - sdk_s * sdk_nblk); /* group of the system */\n"
    "  const sdk_i64 sdk_g = sdk_s / sdk_spg;\n"
    "  const double sdk_invN = 1.0 / (double)sdk_N;\n"
    "  (void)sdk_ppg; (void)sdk_nchunk; (void)sdk_invN; (void)sdk_g; (void)sdk_st_out;\n";

static const char STEP_TAIL[] =
    "  /* no counters: the groups of a system span MPI ranks; sdk_sys_sums forms the sums\n"
    "   * once every rank's group sums are in part[] */\n"
    "  if (!sdk_cnt) return;\n"
    "  if (sdk_tid == 0)\n"
    "    /* release: part[] before the count; acquire: the others' part[] after it */\n"
    "    sdk_slast = sdk_atom_inc_acqrel(&sdk_cnt[sdk_s]) == (unsigned)(sdk_nblk - 1);\n"
    "  __syncthreads();\n"
    "  if (!sdk_slast) return;\n";
/* the system's sums from its groups' (and the order parameter): the last
 * block of sdk_sys_step, or a block of sdk_sys_sums */
static const char STEP_FINISH[] =
    "  sdk_sys_total(sdk_part + sdk_s * sdk_nblk * SDK_NRED, sdk_nblk, sdk_sred, sdk_stot);\n"
    "  if (sdk_tid == 0) {\n"
    "    for (int sdk_k = 0; sdk_k < SDK_NRED; sdk_k++) sdk_sums_out[sdk_s * SDK_NRED + sdk_k] = "
    "sdk_stot[sdk_k];\n"
    "    if (sdk_cnt) sdk_cnt[sdk_s] = 0u;\n"
    "  }\n";

void sdk_cg_sys_step_head(sdk_emit *em, const char *name, const char *extra) {
  sdk_em_printf(em, STEP_HEAD, name, extra);
  em->depth++;
}

/* The order-parameter tail of sdk_sys_step's last block (tot: the system's
 * sums of step n + 1): Z of the system, then of its grid point. */
static void emit_order_tail(sdk_emit *em, const sdk_cg_red *red) {
  if (red->ocos < 0) {
    sdk_em_puts(em, "  (void)sdk_zsys; (void)sdk_gcnt; (void)sdk_obs_row; (void)sdk_sz;\n");
    return;
  }
  sdk_em_printf(
      em,
      "  /* order parameter: Z of the system, then of its grid point */\n"
      "  if (!sdk_obs_row) return;\n"
      "  if (sdk_tid == 0) {\n"
      "    const double sdk_zr = sdk_stot[%d] * sdk_invN, sdk_zi = sdk_stot[%d] * sdk_invN, sdk_z2 "
      "= sdk_zr * sdk_zr + sdk_zi * sdk_zi;\n"
      "    if (sdk_spg == 1) { /* one system per grid point: its Z is the row */\n"
      "      sdk_obs_row[sdk_g * 4 + 0] = sqrt(sdk_z2); sdk_obs_row[sdk_g * 4 + 1] = sdk_z2;\n"
      "      sdk_obs_row[sdk_g * 4 + 2] = sdk_zr; sdk_obs_row[sdk_g * 4 + 3] = sdk_zi;\n"
      "      sdk_slast = 0;\n"
      "    } else {\n"
      "      sdk_zsys[sdk_s * 4 + 0] = sqrt(sdk_z2); sdk_zsys[sdk_s * 4 + 1] = sdk_z2; "
      "sdk_zsys[sdk_s * 4 + 2] = sdk_zr; sdk_zsys[sdk_s * 4 + 3] = sdk_zi;\n"
      "      sdk_slast = sdk_atom_inc_acqrel(&sdk_gcnt[sdk_g]) == (unsigned)(sdk_spg - 1);\n"
      "    }\n"
      "  }\n"
      "  __syncthreads();\n"
      "  if (!sdk_slast) return;\n"
      "  const int sdk_lane = sdk_tid & 31, sdk_warp = sdk_tid >> 5;\n"
      "#pragma unroll\n"
      "  for (int sdk_k = 0; sdk_k < 4; sdk_k++) {\n"
      "    double sdk_v = 0.0;\n"
      "    for (sdk_i64 sdk_q = sdk_tid; sdk_q < sdk_spg; sdk_q += SDK_STPB) sdk_v += "
      "__ldcg(&sdk_zsys[(sdk_g * sdk_spg + sdk_q) * 4 + sdk_k]);\n"
      "#pragma unroll\n"
      "    for (int sdk_o = 16; sdk_o > 0; sdk_o >>= 1) sdk_v += __shfl_down_sync(0xffffffffu, "
      "sdk_v, sdk_o);\n"
      "    if (sdk_lane == 0) sdk_sz[sdk_warp][sdk_k] = sdk_v;\n"
      "  }\n"
      "  __syncthreads();\n"
      "  if (sdk_tid == 0) {\n"
      "    for (int sdk_k = 0; sdk_k < 4; sdk_k++) {\n"
      "      double sdk_a = 0.0;\n"
      "      for (int sdk_w = 0; sdk_w < SDK_STPB / 32; sdk_w++) sdk_a += sdk_sz[sdk_w][sdk_k];\n"
      "      sdk_obs_row[sdk_g * 4 + sdk_k] = sdk_a;\n"
      "    }\n"
      "    sdk_gcnt[sdk_g] = 0u;\n"
      "  }\n",
      red->ocos, red->osin);
}

void sdk_cg_sys_step_end(sdk_emit *em, const sdk_cg_red *red) {
  sdk_em_puts(em, STEP_TAIL);
  sdk_em_puts(em, STEP_FINISH);
  emit_order_tail(em, red);
  sdk_em_close(em);
}

/* Systems spanning MPI ranks (mean field): block s forms system s's sums of
 * the state the step kernel just summed, from part[] holding every rank's
 * group sums, exactly as the last block of sdk_sys_step does. */
static const char SUMS_HEAD[] =
    "\nextern \"C\" __global__ void __launch_bounds__(SDK_STPB, 1)\n"
    "sdk_sys_sums(const double *sdk_part, int sdk_nblk, sdk_i64 sdk_N, sdk_i64 sdk_spg, double "
    "*sdk_sums_out,\n"
    "             unsigned *sdk_cnt, double *sdk_zsys, unsigned *sdk_gcnt, double *sdk_obs_row) "
    "{\n"
    "  __shared__ double sdk_sred[2 * SDK_STPB / 32][SDK_NRED];\n"
    "  __shared__ double sdk_sz[SDK_STPB / 32][4];\n"
    "  __shared__ double sdk_stot[SDK_NRED];\n"
    "  __shared__ int sdk_slast;\n"
    "  const int sdk_tid = threadIdx.x;\n"
    "  const sdk_i64 sdk_s = blockIdx.x, sdk_g = sdk_s / sdk_spg;\n"
    "  const double sdk_invN = 1.0 / (double)sdk_N;\n"
    "  (void)sdk_invN; (void)sdk_g; (void)sdk_slast; (void)sdk_sz;\n";

void sdk_cg_sys_sums_kernel(sdk_emit *em, const sdk_cg_red *red) {
  sdk_em_puts(em, SUMS_HEAD);
  em->depth++;
  sdk_em_puts(em, STEP_FINISH);
  emit_order_tail(em, red);
  sdk_em_close(em);
}

void sdk_cg_sys_bind_state(sdk_emit *em, const sdk_codegen_opts *o, int next) {
  sdk_cg_bind_vars(em, o->model, "sdk_x%d");
  if (next)
    sdk_cg_bind_time(em, o, "sdk_mode ? sdk_t01 : sdk_t0", "sdk_mode ? sdk_tp01 : sdk_tp0");
  else
    sdk_cg_bind_time(em, o, "sdk_t0", "sdk_tp0");
}

void sdk_cg_sys_draw_params(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  for (int k = 0; k < m->npart; k++) {
    if (sdk_cg_part_const(o, k)) continue;
    char dst[64];
    snprintf(dst, sizeof dst, "sdk_pp%d", k);
    sdk_em_line(em, "real sdk_pp%d;", k);
    sdk_cg_part_draw(em, o, k, "sdk_gp", dst);
  }
  sdk_cg_part_bind(em, o, "sdk_pp%d", 0);
}

void sdk_cg_sys_accumulate(sdk_emit *em, const sdk_codegen_opts *o, const sdk_cg_red *red) {
  if (red->n == 0) return;
  sdk_em_open(em, "if (sdk_act)");
  sdk_cg_sys_bind_state(em, o, 1);
  for (int k = 0; k < red->n; k++) {
    sdk_em_start(em, "sdk_acc[%d] += (real)", k);
    sdk_cg_expr(em, o, red->e[k], red->line[k]);
    sdk_em_puts(em, ";\n");
  }
  sdk_em_close(em);
}
