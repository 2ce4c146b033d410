/* The CUDA kernels of mean-field models (sys_cuda.c has the contract):
 * sdk_sys_group (one group of particles, one step), the per-step launch
 * sdk_sys_step and the persistent kernel sdk_sys_run. */
#include <stdio.h>

#include "codegen/common.h"
#include "codegen/expr_emit.h"
#include "codegen/sys_cuda.h"

/* the group function's head: parameters, times, couplings, the chunk loop */
static void emit_group_head(sdk_emit *em, const sdk_codegen_opts *o) {
  sdk_em_text(
      em, "\n/* One group (s, c): particles c * gsz .. + glen - 1 of system s, whose variable v\n"
          " * lives at xg[v * npad + i] (device memory) or, for the chunks resident in shared\n"
          " * memory, in xs: chunk j0 + cc of the block's is in slot slot_of[j0 + cc] (-1: not\n"
          " * resident; no table: none is), variable v at xs[v * vss + slot * SDK_CH + i].\n"
          " * tot: the system's sums of step n. */\n"
          "static __device__ __forceinline__ void sdk_sys_group(real *sdk_xg, sdk_i64 sdk_npad, "
          "real *sdk_xs, sdk_i64 sdk_vss, int sdk_j0,\n"
          "    const short *sdk_slot_of, int sdk_glen, sdk_i64 sdk_s, sdk_i64 sdk_c,\n"
          "    sdk_i64 sdk_N, sdk_i64 sdk_spg, int sdk_gsz, const real *__restrict__ sdk_sv, "
          "sdk_i64 sdk_n, sdk_u64 sdk_seed,\n"
          "    int sdk_mode, const double *sdk_tot, double *sdk_part_g, double "
          "(*sdk_sred)[SDK_NRED], int sdk_half) {\n");
  em->depth++;
  sdk_em_text(em, "const int sdk_tid = threadIdx.x;\n"
                  "const sdk_i64 sdk_g = sdk_s / sdk_spg;\n"
                  "(void)sdk_sv; (void)sdk_g; (void)sdk_tot; (void)sdk_seed;\n");
  sdk_cg_sys_prologue(em, o, 1); /* times of steps n and n + 1 (suffix 1) */
  sdk_em_text(em, "const double sdk_invN = 1.0 / (double)sdk_N;\n"
                  "(void)sdk_invN;\n");
  sdk_cg_bind_coupling(em, o->model, 0, "sdk_mode ? (real)(sdk_tot[%d] * sdk_invN) : (real)0");
  sdk_em_text(em,
              "real sdk_acc[SDK_NRED];\n"
              "#pragma unroll\n"
              "for (int sdk_k = 0; sdk_k < SDK_NRED; sdk_k++) sdk_acc[sdk_k] = (real)0;\n"
              "const sdk_i64 sdk_gi0 = sdk_c * (sdk_i64)sdk_gsz; /* the group's first particle */\n"
              "/* quad index (stream domain 3) of the group's first particle */\n"
              "const sdk_u64 sdk_q0 = (sdk_u64)sdk_s * (sdk_u64)((sdk_N + 3) >> 2) + "
              "(sdk_u64)(sdk_gi0 >> 2);\n"
              "(void)sdk_q0;\n");
  sdk_em_open(em, "for (int sdk_cc = 0; sdk_cc * SDK_CH < sdk_glen; sdk_cc++)");
  sdk_em_line(em,
              "const int sdk_i0 = sdk_cc * SDK_CH + 4 * sdk_tid; /* my quad 0 of this chunk */");
}

/* the noise of the thread's quads (domain 3): their Philox blocks in
 * lockstep (rng/philox.h), then the values (the loads are in flight
 * meanwhile) */
static void emit_chunk_noise(sdk_emit *em, const sdk_codegen_opts *o) {
  int nn = o->model->nnoise;
  sdk_em_line(em, "real sdk_zv[SDK_QI][4][%d];", nn);
  sdk_em_open(em, "if (sdk_mode)");
  static const char *const w[4] = {"sdk_ph[sdk_it][0]", "sdk_ph[sdk_it][1]", "sdk_ph[sdk_it][2]",
                                   "sdk_ph[sdk_it][3]"};
  for (int j = 0; j < nn; j++) {
    sdk_em_block(em);
    sdk_em_line(em, "const sdk_u64 sdk_k = (sdk_u64)sdk_n * SDK_NN + %d;", j);
    sdk_em_line(em, "sdk_u32 sdk_ph[SDK_QI][4];");
    sdk_em_line(em, "#pragma unroll");
    sdk_em_open(em, "for (int sdk_it = 0; sdk_it < SDK_QI; sdk_it++)");
    sdk_em_line(em, "const sdk_u64 sdk_q = sdk_q0 + (sdk_u64)((sdk_i0 + sdk_it * 1024) >> 2);");
    sdk_em_line(em, "sdk_philox_counter(sdk_ph[sdk_it], sdk_q, sdk_k, 3u);");
    sdk_em_close(em);
    sdk_em_line(em, "sdk_philox_blocks(sdk_ph, SDK_QI, sdk_seed);");
    sdk_em_line(em, "#pragma unroll");
    sdk_em_open(em, "for (int sdk_it = 0; sdk_it < SDK_QI; sdk_it++)");
    char d[4][32];
    const char *dst[4];
    for (int l = 0; l < 4; l++) {
      snprintf(d[l], sizeof d[l], "sdk_zv[sdk_it][%d][%d]", l, j);
      dst[l] = d[l];
    }
    sdk_cg_noise(o)->emit_words(em, w, dst);
    sdk_em_close(em);
    sdk_em_close(em);
  }
  sdk_em_close(em);
}

/* each particle of the thread's quads: its step, then its terms of the sums */
static void emit_chunk_particles(sdk_emit *em, const sdk_codegen_opts *o, const sdk_cg_red *red,
                                 int part) {
  const sdk_model *m = o->model;
  sdk_em_line(em, "#pragma unroll");
  sdk_em_open(em, "for (int sdk_it = 0; sdk_it < SDK_QI; sdk_it++)");
  sdk_em_line(em, "#pragma unroll");
  sdk_em_open(em, "for (int sdk_l = 0; sdk_l < 4; sdk_l++)");
  sdk_em_line(em, "const int sdk_li = sdk_i0 + sdk_it * 1024 + sdk_l;");
  sdk_em_line(em, "const int sdk_act = %s;", part ? "(sdk_li < sdk_glen)" : "(1)");
  sdk_em_line(em, "const sdk_i64 sdk_gp = sdk_s * sdk_N + sdk_gi0 + sdk_li; /* global particle "
                  "index */");
  sdk_em_line(em, "(void)sdk_act; (void)sdk_gp;");
  for (int v = 0; v < m->nvars; v++)
    sdk_em_line(em, "real sdk_x%d = sdk_xv[sdk_it][sdk_l][%d];", v, v);
  sdk_cg_sys_draw_params(em, o);
  sdk_em_open(em, "if (sdk_mode)");
  for (int j = 0; j < m->nnoise; j++)
    sdk_em_line(em, "const real sdk_z%d = sdk_zv[sdk_it][sdk_l][%d];", j, j);
  o->scheme->emit_step(em, o, NULL);
  for (int v = 0; v < m->nvars; v++)
    sdk_em_line(em, "sdk_xv[sdk_it][sdk_l][%d] = sdk_x%d;", v, v);
  sdk_em_close(em);
  sdk_cg_sys_accumulate(em, o, red);
  sdk_em_close(em);
  sdk_em_close(em);
}

/* The loads (store = 0) or the stores of the thread's quads of a chunk: x at
 * sdk_xb, variable v at v * sdk_vs, the chunk at sdk_off; a whole chunk by
 * vector accesses when N % 4 == 0, a partial one (part) bounds-checked. */
static void emit_chunk_io(sdk_emit *em, const sdk_codegen_opts *o, int store, int part) {
  int vec = o->particles % 4 == 0 && !part;
  sdk_em_line(em, "#pragma unroll");
  sdk_em_open(em, "for (int sdk_it = 0; sdk_it < SDK_QI; sdk_it++)");
  sdk_em_line(em, "const int sdk_li = sdk_i0 + sdk_it * 1024;");
  for (int v = 0; v < o->model->nvars; v++) {
    if (vec) {
      sdk_em_start(em, "%s(sdk_xb + %d * sdk_vs + sdk_li + sdk_off, ",
                   store ? "SDK_ST4" : "SDK_LD4", v);
      for (int l = 0; l < 4; l++)
        sdk_em_printf(em, "%ssdk_xv[sdk_it][%d][%d]", l ? ", " : "", l, v);
      sdk_em_puts(em, ");\n");
      continue;
    }
    char xb[64];
    snprintf(xb, sizeof xb, "sdk_xb[%d * sdk_vs + sdk_li + sdk_off + sdk_l]", v);
    sdk_em_line(em, "#pragma unroll");
    sdk_em_start(em, "for (int sdk_l = 0; sdk_l < 4; sdk_l++) ");
    if (store)
      sdk_em_printf(em, "%s%s = sdk_xv[sdk_it][sdk_l][%d];\n",
                    part ? "if (sdk_li + sdk_l < sdk_glen) " : "", xb, v);
    else if (part)
      sdk_em_printf(em, "sdk_xv[sdk_it][sdk_l][%d] = sdk_li + sdk_l < sdk_glen ? %s : (real)0;\n",
                    v, xb);
    else
      sdk_em_printf(em, "sdk_xv[sdk_it][sdk_l][%d] = %s;\n", v, xb);
  }
  sdk_em_close(em);
}

/* A chunk of the group, whole or partial (part): x_n -> x_{n+1} of its
 * particles and the sums of the reduced expressions of x_{n+1} (mode 0: of
 * x_n, no step). */
static void emit_chunk(sdk_emit *em, const sdk_codegen_opts *o, const sdk_cg_red *red, int part) {
  sdk_em_block(em);
  sdk_em_line(em, "real sdk_xv[SDK_QI][4][%d];", o->model->nvars);
  emit_chunk_io(em, o, 0, part);
  if (o->model->nnoise > 0) emit_chunk_noise(em, o);
  emit_chunk_particles(em, o, red, part);
  sdk_em_open(em, "if (sdk_mode)");
  emit_chunk_io(em, o, 1, part);
  sdk_em_close(em);
  sdk_em_close(em);
}

/* The group function: every chunk of the group, x in shared memory (its
 * slot) or in device memory, whole or partial. */
static void emit_group(sdk_emit *em, const sdk_codegen_opts *o, const sdk_cg_red *red) {
  static const char *const side[2][3] = {
      {"sdk_xs; /* resident */", "sdk_vss", "(sdk_slot - sdk_cc) * SDK_CH"},
      {"sdk_xg; /* in device memory */", "sdk_npad", "0"}};
  emit_group_head(em, o);
  sdk_em_line(em, "const int sdk_slot = sdk_slot_of ? sdk_slot_of[sdk_j0 + sdk_cc] : -1;");
  for (int s = 0; s < 2; s++) {
    if (s == 0)
      sdk_em_open(em, "if (sdk_slot >= 0)");
    else
      sdk_em_reopen(em, "else");
    sdk_em_line(em, "real *const sdk_xb = %s", side[s][0]);
    sdk_em_line(em, "const sdk_i64 sdk_vs = %s;", side[s][1]);
    sdk_em_line(em, "const int sdk_off = %s;", side[s][2]);
    sdk_em_open(em, "if (sdk_glen - sdk_cc * SDK_CH >= SDK_CH)");
    emit_chunk(em, o, red, 0);
    sdk_em_reopen(em, "else");
    emit_chunk(em, o, red, 1);
    sdk_em_close(em);
  }
  sdk_em_close(em);
  sdk_em_close(em);
  sdk_em_line(em, "sdk_sys_block_sum(sdk_acc, sdk_sred, sdk_part_g, sdk_half);");
  sdk_em_close(em);
}

/* one launch per step: the block's group */
static void emit_step_kernel(sdk_emit *em, const sdk_cg_red *red) {
  sdk_cg_sys_step_head(em, "sdk_sys_step", "");
  sdk_em_puts(
      em, "  const sdk_i64 sdk_gi0 = (sdk_i64)sdk_c * sdk_cpb * SDK_CH;\n"
          "  const int sdk_glen = (int)(sdk_N - sdk_gi0 < sdk_cpb * SDK_CH ? sdk_N - sdk_gi0 "
          ": sdk_cpb * SDK_CH);\n"
          "  sdk_sys_group((real *)sdk_st_in + sdk_s * sdk_N + sdk_gi0, sdk_npad, (real *)0, 0, "
          "0, (const short *)0, sdk_glen, sdk_s, sdk_c, sdk_N,\n"
          "                sdk_spg, sdk_cpb * SDK_CH,\n"
          "                sdk_sv, sdk_n, sdk_seed, sdk_mode, sdk_sums_in + sdk_s * "
          "SDK_NRED, sdk_part + sdk_gb * SDK_NRED, sdk_sred, 0);\n");
  sdk_cg_sys_step_end(em, red);
}

/* The persistent kernel, up to its owner's order-parameter row and after it. */
static const char RUN_HEAD[] =
    "\n/* Many steps in one cooperative launch.  Block b owns groups [G b / B, G (b+1) / B)\n"
    " * of the G = nsys * nblk groups (in system order), and the systems (at most msys)\n"
    " * they belong to; of its J chunks, Rb = min(R, J), spread evenly (chunk j when\n"
    " * (j + 1) Rb / J > j Rb / J, in slot j Rb / J), live in shared memory for the whole\n"
    " * launch (see sdk_sys_group), the others stream through device memory.  Every\n"
    " * step the block writes its groups' sums, meets the others at the step barrier\n"
    " * (bar: 0 at the start) and forms the sums of its systems from their groups'\n"
    " * (the half of part of step n + 1 is written again only after the next barrier,\n"
    " * which every block reaches after reading it).  The sums of step step0 must be\n"
    " * in sums[step0 & 1]; the owner of a system's group 0 writes its sums of every step\n"
    " * (and, one system per grid point, its order-parameter row: obs + r * nsys * 4). */\n"
    "extern __shared__ __align__(16) unsigned char sdk_dsm[];\n"
    "extern \"C\" __global__ void __launch_bounds__(SDK_STPB, SDK_MINB_RUN)\n"
    "sdk_sys_run(real *sdk_st, sdk_i64 sdk_npad, const real *__restrict__ sdk_sv, sdk_i64 "
    "sdk_N, sdk_i64 sdk_nsys, sdk_i64 sdk_spg,\n"
    "            int sdk_nblk, int sdk_cpb, sdk_i64 sdk_step0, int sdk_nsteps, sdk_u64 "
    "sdk_seed, double *sdk_sums, double *sdk_part,\n"
    "            unsigned *sdk_bar, double *sdk_obs, sdk_i64 sdk_obs_every, int sdk_R, int "
    "sdk_msys) {\n"
    "  __shared__ double sdk_sred[2 * SDK_STPB / 32][SDK_NRED];\n"
    "  double *sdk_tot = (double *)sdk_dsm; /* [msys][SDK_NRED] */\n"
    "  real *sdk_xs = (real *)(sdk_dsm + (((size_t)sdk_msys * SDK_NRED * sizeof(double) + 15) & "
    "~(size_t)15));\n"
    "  const int sdk_tid = threadIdx.x, sdk_gsz = sdk_cpb * SDK_CH;\n"
    "  const sdk_i64 sdk_G = sdk_nsys * sdk_nblk, sdk_B = gridDim.x;\n"
    "  const sdk_i64 sdk_gb0 = sdk_G * blockIdx.x / sdk_B, sdk_gb1 = sdk_G * (blockIdx.x + 1) / "
    "sdk_B;\n"
    "  const sdk_i64 sdk_slo = sdk_gb0 / sdk_nblk, sdk_shi = (sdk_gb1 - 1) / sdk_nblk;\n"
    "  const int sdk_J = (int)(sdk_gb1 - sdk_gb0) * sdk_cpb, sdk_Rb = sdk_R < sdk_J ? sdk_R : "
    "sdk_J;\n"
    "  const sdk_i64 sdk_vss = (sdk_i64)sdk_R * SDK_CH;\n"
    "  /* the slot of each chunk of the block (-1: streamed), after x */\n"
    "  short *sdk_slot_of = (short *)(sdk_xs + SDK_NV * sdk_vss);\n"
    "  for (int sdk_j = sdk_tid; sdk_j < sdk_J; sdk_j += SDK_STPB) {\n"
    "    const int sdk_sl = (int)((sdk_i64)sdk_j * sdk_Rb / sdk_J);\n"
    "    sdk_slot_of[sdk_j] = (int)(((sdk_i64)sdk_j + 1) * sdk_Rb / sdk_J) > sdk_sl ? "
    "(short)sdk_sl : "
    "(short)-1;\n"
    "  }\n"
    "  __syncthreads();\n"
    "  const sdk_i64 sdk_hs = sdk_nsys * SDK_NRED;\n"
    "  const double sdk_invN = 1.0 / (double)sdk_N;\n"
    "  (void)sdk_invN; (void)sdk_obs; (void)sdk_obs_every;\n"
    "  for (sdk_i64 sdk_i = sdk_tid; sdk_i < (sdk_shi - sdk_slo + 1) * SDK_NRED; sdk_i += "
    "SDK_STPB)\n"
    "    sdk_tot[sdk_i] = __ldcg(sdk_sums + (sdk_step0 & 1) * sdk_hs + sdk_slo * SDK_NRED + "
    "sdk_i);\n"
    "  for (int sdk_pass = 0; sdk_pass < 2; sdk_pass++) {\n"
    "    if (sdk_pass == 1) { /* the steps, then the resident chunks out */\n"
    "      for (int sdk_it = 0; sdk_it < sdk_nsteps; sdk_it++) {\n"
    "        const sdk_i64 sdk_n = sdk_step0 + sdk_it;\n"
    "        double *sdk_pw = sdk_part + ((sdk_n + 1) & 1) * sdk_G * SDK_NRED;\n"

    "        for (sdk_i64 sdk_gr = sdk_gb0; sdk_gr < sdk_gb1; sdk_gr++) {\n"
    "          const sdk_i64 sdk_s = sdk_gr / sdk_nblk, sdk_c = sdk_gr - sdk_s * sdk_nblk, "
    "sdk_gi0 "
    "= sdk_c * sdk_gsz;\n"
    "          const int sdk_glen = (int)(sdk_N - sdk_gi0 < sdk_gsz ? sdk_N - sdk_gi0 : "
    "sdk_gsz);\n"
    "          sdk_sys_group(sdk_st + sdk_s * sdk_N + sdk_gi0, sdk_npad, sdk_xs, sdk_vss, "
    "(int)(sdk_gr - sdk_gb0) * sdk_cpb,\n"
    "                        sdk_Rb > 0 ? sdk_slot_of : (const short *)0,\n"
    "                        sdk_glen, sdk_s, sdk_c, sdk_N, sdk_spg, sdk_gsz, sdk_sv, sdk_n, "
    "sdk_seed, 1, sdk_tot + (sdk_s - sdk_slo) * SDK_NRED,\n"
    "                        sdk_pw + sdk_gr * SDK_NRED, sdk_sred, (int)(sdk_gr - sdk_gb0) & "
    "1);\n"
    "        }\n"
    "        sdk_grid_sync(sdk_bar, (unsigned)(sdk_it + 1) * (unsigned)sdk_B);\n"
    "        for (sdk_i64 sdk_s = sdk_slo; sdk_s <= sdk_shi; sdk_s++) {\n"
    "          double *sdk_ts = sdk_tot + (sdk_s - sdk_slo) * SDK_NRED;\n"
    "          sdk_sys_total(sdk_pw + sdk_s * sdk_nblk * SDK_NRED, sdk_nblk, sdk_sred, sdk_ts);\n"
    "          if (sdk_tid == 0 && sdk_s * sdk_nblk >= sdk_gb0) { /* the system's owner */\n"
    "            for (int sdk_k = 0; sdk_k < SDK_NRED; sdk_k++)\n"
    "              sdk_sums[((sdk_n + 1) & 1) * sdk_hs + sdk_s * SDK_NRED + sdk_k] = "
    "sdk_ts[sdk_k];\n";

static const char RUN_TAIL[] =
    "          }\n"
    "        }\n"
    "      }\n"
    "      __syncthreads();\n"
    "    }\n"
    "    /* pass 0: the resident chunks in; pass 1: out */\n"
    "    for (int sdk_j = 0; sdk_Rb > 0 && sdk_j < sdk_J; sdk_j++) {\n"
    "      const int sdk_slot = sdk_slot_of[sdk_j];\n"
    "      if (sdk_slot < 0) continue;\n"
    "      const sdk_i64 sdk_gr = sdk_gb0 + sdk_j / sdk_cpb, sdk_s = sdk_gr / sdk_nblk;\n"
    "      const sdk_i64 sdk_c0 = (sdk_gr - sdk_s * sdk_nblk) * sdk_gsz + (sdk_j % sdk_cpb) * "
    "SDK_CH;\n"
    "      const int sdk_clen = (int)(sdk_N - sdk_c0 < SDK_CH ? sdk_N - sdk_c0 : SDK_CH);\n"
    "      for (int sdk_v = 0; sdk_v < SDK_NV; sdk_v++)\n"
    "        for (int sdk_i = sdk_tid; sdk_i < sdk_clen; sdk_i += SDK_STPB) {\n"
    "          real *sdk_d = sdk_st + sdk_v * sdk_npad + sdk_s * sdk_N + sdk_c0 + sdk_i;\n"
    "          real *sdk_h = sdk_xs + sdk_v * sdk_vss + (sdk_i64)sdk_slot * SDK_CH + sdk_i;\n"
    "          if (sdk_pass == 0)\n"
    "            *sdk_h = *sdk_d;\n"
    "          else\n"
    "            *sdk_d = *sdk_h;\n"
    "        }\n"
    "    }\n"
    "    if (sdk_pass == 0) __syncthreads();\n"
    "  }\n"
    "}\n";

/* the persistent kernel */
static void emit_run_kernel(sdk_emit *em, const sdk_cg_red *red) {
  sdk_em_puts(em, RUN_HEAD);
  if (red->ocos >= 0)
    sdk_em_printf(
        em,
        "            if (sdk_obs && (sdk_n + 1) %% sdk_obs_every == 0) {\n"
        "              const sdk_i64 sdk_row = (sdk_n + 1) / sdk_obs_every - sdk_step0 / "
        "sdk_obs_every - 1;\n"
        "              const double sdk_zr = sdk_ts[%d] * sdk_invN, sdk_zi = sdk_ts[%d] * "
        "sdk_invN, sdk_z2 = sdk_zr * sdk_zr + sdk_zi * sdk_zi;\n"
        "              double *sdk_o = sdk_obs + (sdk_row * sdk_nsys + sdk_s) * 4;\n"
        "              sdk_o[0] = sqrt(sdk_z2); sdk_o[1] = sdk_z2; sdk_o[2] = sdk_zr; sdk_o[3] = "
        "sdk_zi;\n"
        "            }\n",
        red->ocos, red->osin);
  sdk_em_puts(em, RUN_TAIL);
}

void sdk_cg_sys_meanfield(sdk_emit *em, const sdk_codegen_opts *o, const sdk_cg_red *red) {
  emit_group(em, o, red);
  emit_step_kernel(em, red);
  sdk_cg_sys_sums_kernel(em, red);
  emit_run_kernel(em, red);
}
