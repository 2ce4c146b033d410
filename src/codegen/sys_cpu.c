/* CPU driver for systems of interacting particles (see sys.c).
 *
 * int sdk_advance_sys(st, npad, sv, ppg, ngrid, path0, step0, nsteps, seed,
 *                     nthreads, N, obs_every, obs)
 * advances every system by nsteps Euler steps (nsteps = 0: nothing) and
 * writes the order parameter of the states it passes (see backend.h,
 * advance_sys).  Returns 0, or 1 when out of memory.
 *
 * One OpenMP parallel region runs all the steps; each step is
 *   - the sums of the reduced expressions per chunk of SDK_BLK particles of a
 *     system (chunks aligned to the system's start), then per system in chunk
 *     order: deterministic, whatever the thread count;
 *   - the pair functions: particle i's sum over j in blocks of SDK_JB
 *     (float within a block, double across blocks), i vectorised;
 *   - the update per block of SDK_BLK particles.
 * Gaussians follow the system stream of rng/philox.h (domain 3): one Philox
 * block per four consecutive particles of a system and step.  When N is a
 * multiple of 4 those quads are aligned with the global index (quad p >> 2),
 * so a block of SDK_BLK particles draws SDK_BLK / 4 whole blocks; otherwise
 * every particle draws its quad's block and takes its lane. */
#include <stdio.h>
#include <string.h>

#include "codegen/codegen_internal.h"

static void bind_vars_from(sdk_strbuf *b, const sdk_model *m, const char *fmt, const char *ind) {
  for (int v = 0; v < m->nvars; v++) {
    sdk_sb_printf(b, "%sconst real ", ind);
    sdk_cg_name(b, m->vars[v]);
    sdk_sb_puts(b, " = ");
    sdk_sb_printf(b, fmt, v);
    sdk_sb_puts(b, "; (void)");
    sdk_cg_name(b, m->vars[v]);
    sdk_sb_puts(b, ";\n");
  }
}

/* const real NAME = <fmt with k>; for the [meanfield] (pair = 0) or [pair] names */
static void bind_coupling(sdk_strbuf *b, const sdk_model *m, int pair, const char *fmt,
                          const char *ind) {
  int n = pair ? m->npair : m->nmean;
  for (int k = 0; k < n; k++) {
    const char *name = pair ? m->pair_names[k] : m->mean_names[k];
    sdk_sb_printf(b, "%sconst real ", ind);
    sdk_cg_name(b, name);
    sdk_sb_puts(b, " = ");
    sdk_sb_printf(b, fmt, k);
    sdk_sb_puts(b, "; (void)");
    sdk_cg_name(b, name);
    sdk_sb_puts(b, ";\n");
  }
}

void sdk_cg_emit_sys_cpu(sdk_strbuf *b, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  int nv = m->nvars, nn = m->nnoise;
  sdk_cg_red red;
  sdk_cg_red_build(&red, o);
  int nred = red.n, nmean = m->nmean, npair = m->npair;
  int ndraw = 0;
  for (int k = 0; k < m->npart; k++)
    ndraw += !sdk_cg_part_const(o, k);
  sdk_sb_printf(
      b,
      "\n/* ---- systems of interacting particles ---- */\n#include <stdlib.h>\n"
      "#define SDK_NRED %d\n#define SDK_NMEAN %d\n#define SDK_NPAIR %d\n#define SDK_NPART %d\n"
      "#define SDK_JB 256\n",
      nred > 0 ? nred : 1, nmean > 0 ? nmean : 1, npair > 0 ? npair : 1,
      m->npart > 0 ? m->npart : 1);
  sdk_sb_printf(b, "int sdk_sys_nred(void) { return %d; }\n", nred);

  /* sums of the reduced expressions over particles [i0, i0 + cnt) of one system */
  sdk_sb_puts(b, "\nstatic void sdk_red_chunk(const real *restrict sdk_st, sdk_i64 sdk_npad, const "
                 "real *restrict sdk_sv, "
                 "sdk_i64 sdk_g, const real *restrict sdk_pp, sdk_i64 sdk_i0, int sdk_cnt, sdk_i64 "
                 "sdk_n, sdk_u64 sdk_seed, "
                 "double *restrict sdk_out) {\n"
                 "  real sdk_vals[SDK_NRED][SDK_BLK];\n  (void)sdk_sv; (void)sdk_g; (void)sdk_pp; "
                 "(void)sdk_seed;\n");
  sdk_cg_params(b, o, "sdk_sv[sdk_g * SDK_NSV + %d]", "  ");
  sdk_sb_puts(b, "  (void)sdk_sqdt;\n");
  sdk_cg_step_time(b, o, "sdk_n", "  ", "");
  sdk_sb_puts(b, "#pragma omp simd\n  for (int sdk_i = 0; sdk_i < SDK_BLK; sdk_i++) {\n"
                 "    const sdk_i64 sdk_p = sdk_i0 + (sdk_i < sdk_cnt ? sdk_i : 0);\n");
  bind_vars_from(b, m, "sdk_st[%d * sdk_npad + sdk_p]", "    ");
  sdk_cg_part_bind(b, o, "sdk_pp[%d * sdk_npad + sdk_p]", 0, "    ");
  sdk_cg_bind_time(b, o, "sdk_t0", "sdk_tp0", "    ");
  for (int k = 0; k < nred; k++) {
    sdk_sb_printf(b, "    sdk_vals[%d][sdk_i] = ", k);
    sdk_cg_emit_expr(b, o, red.e[k], red.line[k]);
    sdk_sb_puts(b, ";\n");
  }
  sdk_sb_puts(b, "  }\n");
  for (int k = 0; k < nred; k++)
    sdk_sb_printf(b,
                  "  { double sdk_a = 0; for (int sdk_i = 0; sdk_i < sdk_cnt; sdk_i++) sdk_a += "
                  "(double)sdk_vals[%d][sdk_i]; sdk_out[%d] = sdk_a; }\n",
                  k, k);
  sdk_sb_puts(b, "}\n");

  /* pair functions of particles [i0, i0 + cnt) of the system starting at s0 */
  if (npair > 0) {
    sdk_sb_puts(b, "\nstatic void sdk_pair_chunk(const real *restrict sdk_st, sdk_i64 sdk_npad, "
                   "const real *restrict sdk_sv, "
                   "sdk_i64 sdk_g, const real *restrict sdk_pp, sdk_i64 sdk_s0, sdk_i64 sdk_N, "
                   "sdk_i64 sdk_i0, int sdk_cnt, sdk_i64 sdk_n, "
                   "sdk_u64 sdk_seed, real *restrict sdk_fp) {\n"
                   "  (void)sdk_sv; (void)sdk_g; (void)sdk_pp; (void)sdk_seed;\n");
    sdk_cg_params(b, o, "sdk_sv[sdk_g * SDK_NSV + %d]", "  ");
    sdk_sb_puts(b, "  (void)sdk_sqdt;\n");
    sdk_cg_step_time(b, o, "sdk_n", "  ", "");
    sdk_cg_bind_time(b, o, "sdk_t0", "sdk_tp0", "  ");
    sdk_sb_puts(b,
                "  real sdk_xi[SDK_NV][SDK_BLK], sdk_ppi[SDK_NPART][SDK_BLK];\n"
                "  double sdk_accd[SDK_NPAIR][SDK_BLK];\n"
                "  for (int sdk_i = 0; sdk_i < SDK_BLK; sdk_i++) {\n"
                "    const sdk_i64 sdk_p = sdk_i0 + (sdk_i < sdk_cnt ? sdk_i : 0);\n"
                "    for (int sdk_v = 0; sdk_v < SDK_NV; sdk_v++) sdk_xi[sdk_v][sdk_i] = "
                "sdk_st[sdk_v * sdk_npad + sdk_p];\n"
                "    for (int sdk_k = 0; sdk_k < SDK_NPART; sdk_k++) sdk_ppi[sdk_k][sdk_i] = "
                "sdk_pp ? sdk_pp[sdk_k * sdk_npad + sdk_p] : 0;\n"
                "    for (int sdk_k = 0; sdk_k < SDK_NPAIR; sdk_k++) sdk_accd[sdk_k][sdk_i] = 0;\n"
                "  }\n"
                "  for (sdk_i64 sdk_j0 = 0; sdk_j0 < sdk_N; sdk_j0 += SDK_JB) {\n"
                "    const sdk_i64 sdk_nj = sdk_N - sdk_j0 < SDK_JB ? sdk_N - sdk_j0 : SDK_JB;\n"
                "    real sdk_acc[SDK_NPAIR][SDK_BLK];\n"
                "    for (int sdk_k = 0; sdk_k < SDK_NPAIR; sdk_k++) for (int sdk_i = 0; sdk_i < "
                "SDK_BLK; sdk_i++) sdk_acc[sdk_k][sdk_i] = 0;\n"
                "    for (sdk_i64 sdk_jj = 0; sdk_jj < sdk_nj; sdk_jj++) {\n"
                "      const sdk_i64 sdk_q = sdk_s0 + sdk_j0 + sdk_jj;\n");
    for (int v = 0; v < nv; v++)
      sdk_sb_printf(b,
                    "      const real sdk_xj%d = sdk_st[%d * sdk_npad + sdk_q]; (void)sdk_xj%d;\n",
                    v, v, v);
    sdk_cg_part_bind(b, o, "sdk_pp[%d * sdk_npad + sdk_q]", 1, "      ");
    sdk_sb_puts(b, "#pragma omp simd\n      for (int sdk_i = 0; sdk_i < SDK_BLK; sdk_i++) {\n");
    bind_vars_from(b, m, "sdk_xi[%d][sdk_i]", "        ");
    sdk_cg_part_bind(b, o, "sdk_ppi[%d][sdk_i]", 0, "        ");
    for (int k = 0; k < npair; k++) {
      sdk_sb_printf(b, "        sdk_acc[%d][sdk_i] += ", k);
      sdk_cg_emit_expr(b, o, m->pair[k], m->pair_line[k]);
      sdk_sb_puts(b, ";\n");
    }
    sdk_sb_puts(b, "      }\n    }\n"
                   "    for (int sdk_k = 0; sdk_k < SDK_NPAIR; sdk_k++)\n"
                   "      for (int sdk_i = 0; sdk_i < SDK_BLK; sdk_i++) sdk_accd[sdk_k][sdk_i] += "
                   "(double)sdk_acc[sdk_k][sdk_i];\n"
                   "  }\n"
                   "  for (int sdk_i = 0; sdk_i < sdk_cnt; sdk_i++)\n"
                   "    for (int sdk_k = 0; sdk_k < SDK_NPAIR; sdk_k++) sdk_fp[sdk_k * sdk_npad + "
                   "sdk_i0 + sdk_i] = (real)(sdk_accd[sdk_k][sdk_i] / (double)sdk_N);\n"
                   "}\n");
  }

  /* the driver */
  sdk_sb_puts(
      b, "\nint sdk_advance_sys(real *restrict sdk_st, sdk_i64 sdk_npad, const real *restrict "
         "sdk_sv, sdk_i64 sdk_ppg,\n"
         "                    sdk_i64 sdk_ngrid, sdk_i64 sdk_path0, sdk_i64 sdk_step0, sdk_i64 "
         "sdk_nsteps, sdk_u64 sdk_seed,\n"
         "                    int sdk_nthreads, sdk_i64 sdk_N, sdk_i64 sdk_obs_every, double "
         "*sdk_obs) {\n"
         "  const sdk_i64 sdk_ntot = sdk_ngrid * sdk_ppg, sdk_nsys = sdk_ntot / sdk_N, sdk_nch = "
         "(sdk_N + SDK_BLK - 1) / SDK_BLK;\n"
         "  const sdk_i64 sdk_nblk = sdk_npad / SDK_BLK;\n"
         "  double *sdk_sums = calloc((size_t)(sdk_nsys + 1) * SDK_NRED, sizeof(double));\n"
         "  double *sdk_part = malloc((size_t)(sdk_nsys * sdk_nch) * SDK_NRED * sizeof(double));\n"
         "  real *sdk_pp = malloc((size_t)sdk_npad * SDK_NPART * sizeof(real));\n"
         "  real *sdk_fp = calloc((size_t)sdk_npad * SDK_NPAIR, sizeof(real));\n"
         "  if (!sdk_sums || !sdk_part || !sdk_pp || !sdk_fp) {\n"
         "    free(sdk_sums); free(sdk_part); free(sdk_pp); free(sdk_fp);\n"
         "    return 1;\n"
         "  }\n"
         "  sdk_i64 sdk_orow = 0;\n"
         "  (void)sdk_orow; (void)sdk_obs; (void)sdk_obs_every;\n"
         "#pragma omp parallel num_threads(sdk_threads(sdk_nthreads))\n"
         "  {\n");
  if (ndraw > 0) {
    sdk_sb_puts(b, "    /* per-particle parameters (Philox domain 2) */\n"
                   "#pragma omp for schedule(static)\n"
                   "    for (sdk_i64 sdk_p = 0; sdk_p < sdk_npad; sdk_p++) {\n"
                   "      sdk_i64 sdk_g = (sdk_path0 + sdk_p) / sdk_ppg; if (sdk_g >= sdk_ngrid) "
                   "sdk_g = sdk_ngrid - 1;\n"
                   "      (void)sdk_g;\n");
    sdk_cg_params(b, o, "sdk_sv[sdk_g * SDK_NSV + %d]", "      ");
    sdk_sb_puts(b, "      (void)sdk_sqdt;\n");
    for (int k = 0; k < m->npart; k++) {
      if (sdk_cg_part_const(o, k)) continue;
      char dst[64];
      snprintf(dst, sizeof dst, "sdk_pp[%d * sdk_npad + sdk_p]", k);
      sdk_cg_part_draw(b, o, k, "sdk_path0 + sdk_p", dst, "      ");
    }
    sdk_sb_puts(b, "    }\n");
  }
  sdk_sb_puts(b, "    for (sdk_i64 sdk_n = sdk_step0;; sdk_n++) {\n"
                 "      /* sums over each system at step n */\n"
                 "#pragma omp for schedule(static)\n"
                 "      for (sdk_i64 sdk_q = 0; sdk_q < sdk_nsys * sdk_nch; sdk_q++) {\n"
                 "        const sdk_i64 sdk_s = sdk_q / sdk_nch, sdk_c = sdk_q - sdk_s * sdk_nch;\n"
                 "        const int sdk_cnt = (int)(sdk_N - sdk_c * SDK_BLK < SDK_BLK ? sdk_N - "
                 "sdk_c * SDK_BLK : SDK_BLK);\n"
                 "        sdk_red_chunk(sdk_st, sdk_npad, sdk_sv, (sdk_s * sdk_N) / sdk_ppg, "
                 "sdk_pp, sdk_s * sdk_N + sdk_c * SDK_BLK, sdk_cnt, sdk_n, sdk_seed,\n"
                 "                      sdk_part + sdk_q * SDK_NRED);\n"
                 "      }\n"
                 "#pragma omp for schedule(static)\n"
                 "      for (sdk_i64 sdk_s = 0; sdk_s < sdk_nsys; sdk_s++)\n"
                 "        for (int sdk_k = 0; sdk_k < SDK_NRED; sdk_k++) {\n"
                 "          double sdk_a = 0;\n"
                 "          for (sdk_i64 sdk_c = 0; sdk_c < sdk_nch; sdk_c++) sdk_a += "
                 "sdk_part[(sdk_s * sdk_nch + sdk_c) * SDK_NRED + sdk_k];\n"
                 "          sdk_sums[sdk_s * SDK_NRED + sdk_k] = sdk_a;\n"
                 "        }\n");
  if (red.ocos >= 0)
    sdk_sb_printf(
        b,
        "      /* order parameter of the state at step n: per grid point, over its systems,\n"
        "       * sums of |Z|, |Z|^2, Re Z, Im Z with Z = <exp(i k x)> of the system */\n"
        "      if (sdk_obs && (sdk_nsteps == 0 || (sdk_n > sdk_step0 && sdk_obs_every > 0 && sdk_n "
        "%% sdk_obs_every == 0))) {\n"
        "#pragma omp single\n"
        "        {\n"
        "          const sdk_i64 sdk_spg = sdk_ppg / sdk_N;\n"
        "          for (sdk_i64 sdk_g = 0; sdk_g < sdk_ngrid; sdk_g++) {\n"
        "            double sdk_a = 0, sdk_a2 = 0, sdk_re = 0, sdk_im = 0;\n"
        "            for (sdk_i64 sdk_s = sdk_g * sdk_spg; sdk_s < (sdk_g + 1) * sdk_spg; sdk_s++) "
        "{\n"
        "              const double sdk_zr = sdk_sums[sdk_s * SDK_NRED + %d] / (double)sdk_N;\n"
        "              const double sdk_zi = sdk_sums[sdk_s * SDK_NRED + %d] / (double)sdk_N;\n"
        "              const double sdk_z2 = sdk_zr * sdk_zr + sdk_zi * sdk_zi;\n"
        "              sdk_a += sqrt(sdk_z2); sdk_a2 += sdk_z2; sdk_re += sdk_zr; sdk_im += "
        "sdk_zi;\n"
        "            }\n"
        "            double *sdk_o = sdk_obs + (sdk_orow * sdk_ngrid + sdk_g) * 4;\n"
        "            sdk_o[0] = sdk_a; sdk_o[1] = sdk_a2; sdk_o[2] = sdk_re; sdk_o[3] = sdk_im;\n"
        "          }\n"
        "          sdk_orow++;\n"
        "        }\n"
        "      }\n",
        red.ocos, red.osin);
  sdk_sb_puts(b, "      if (sdk_n >= sdk_step0 + sdk_nsteps) break;\n");
  if (npair > 0)
    sdk_sb_puts(b,
                "      /* pair functions at step n */\n"
                "#pragma omp for schedule(dynamic, 1)\n"
                "      for (sdk_i64 sdk_q = 0; sdk_q < sdk_nsys * sdk_nch; sdk_q++) {\n"
                "        const sdk_i64 sdk_s = sdk_q / sdk_nch, sdk_c = sdk_q - sdk_s * sdk_nch;\n"
                "        const int sdk_cnt = (int)(sdk_N - sdk_c * SDK_BLK < SDK_BLK ? sdk_N - "
                "sdk_c * SDK_BLK : SDK_BLK);\n"
                "        sdk_pair_chunk(sdk_st, sdk_npad, sdk_sv, (sdk_s * sdk_N) / sdk_ppg, "
                "sdk_pp, sdk_s * sdk_N, sdk_N, sdk_s * sdk_N + sdk_c * SDK_BLK, sdk_cnt, sdk_n,\n"
                "                       sdk_seed, sdk_fp);\n"
                "      }\n");
  sdk_sb_puts(b, "      /* one Euler step of every particle */\n"
                 "#pragma omp for schedule(static)\n"
                 "      for (sdk_i64 sdk_blk = 0; sdk_blk < sdk_nblk; sdk_blk++) {\n"
                 "        const sdk_i64 sdk_p0 = sdk_blk * SDK_BLK;\n");
  if (nn > 0)
    sdk_sb_puts(b,
                "        /* this step's Gaussians (domain 3, by quads of a system) */\n"
                "        real sdk_zb[SDK_NN][SDK_BLK];\n"
                "        for (int sdk_j = 0; sdk_j < SDK_NN; sdk_j++) {\n"
                "          const sdk_u64 sdk_k = (sdk_u64)sdk_n * SDK_NN + (sdk_u64)sdk_j;\n"
                "          if (sdk_N % 4 == 0) {\n"
                "#pragma omp simd\n"
                "            for (int sdk_q = 0; sdk_q < SDK_BLK / 4; sdk_q++) {\n"
                "              real sdk_g4[4];\n"
                "              sdk_gauss4(sdk_seed, (sdk_u64)((sdk_path0 + sdk_p0) >> 2) + "
                "(sdk_u64)sdk_q, sdk_k, 3, sdk_g4);\n"
                "              for (int sdk_l = 0; sdk_l < 4; sdk_l++) sdk_zb[sdk_j][4 * sdk_q + "
                "sdk_l] = sdk_g4[sdk_l];\n"
                "            }\n"
                "          } else {\n"
                "            const sdk_i64 sdk_nq = (sdk_N + 3) / 4;\n"
                "            for (int sdk_i = 0; sdk_i < SDK_BLK; sdk_i++) {\n"
                "              const sdk_i64 sdk_p = sdk_path0 + sdk_p0 + sdk_i, sdk_s = sdk_p / "
                "sdk_N, sdk_li = sdk_p - sdk_s * sdk_N;\n"
                "              real sdk_g4[4];\n"
                "              sdk_gauss4(sdk_seed, (sdk_u64)(sdk_s * sdk_nq + (sdk_li >> 2)), "
                "sdk_k, 3, sdk_g4);\n"
                "              sdk_zb[sdk_j][sdk_i] = sdk_g4[sdk_li & 3];\n"
                "            }\n"
                "          }\n"
                "        }\n");
  sdk_sb_puts(b, "        real sdk_mv[SDK_NMEAN][SDK_BLK], sdk_spv[SDK_NSV][SDK_BLK];\n"
                 "        {\n"
                 "          sdk_i64 sdk_s = sdk_p0 / sdk_N, sdk_bnd = (sdk_s + 1) * sdk_N;\n"
                 "          for (int sdk_i = 0; sdk_i < SDK_BLK; sdk_i++) {\n"
                 "            if (sdk_p0 + sdk_i >= sdk_bnd) { sdk_s++; sdk_bnd += sdk_N; }\n"
                 "            const sdk_i64 sdk_sr = sdk_s < sdk_nsys ? sdk_s : sdk_nsys; /* "
                 "padding: the zero row */\n"
                 "            for (int sdk_k = 0; sdk_k < SDK_NMEAN; sdk_k++)\n"
                 "              sdk_mv[sdk_k][sdk_i] = (real)(sdk_sums[sdk_sr * SDK_NRED + sdk_k] "
                 "/ (double)sdk_N);\n"
                 "            sdk_i64 sdk_g = (sdk_path0 + sdk_p0 + sdk_i) / sdk_ppg; if (sdk_g >= "
                 "sdk_ngrid) sdk_g = sdk_ngrid - 1;\n"
                 "            for (int sdk_j = 0; sdk_j < SDK_NSV; sdk_j++) sdk_spv[sdk_j][sdk_i] "
                 "= sdk_sv ? sdk_sv[sdk_g * SDK_NSV + sdk_j] : 0;\n"
                 "          }\n"
                 "        }\n"
                 "#pragma omp simd\n"
                 "        for (int sdk_i = 0; sdk_i < SDK_BLK; sdk_i++) {\n");
  sdk_cg_params(b, o, "sdk_spv[%d][sdk_i]", "          ");
  sdk_cg_step_time(b, o, "sdk_n", "          ", "");
  for (int v = 0; v < nv; v++)
    sdk_sb_printf(b, "          real sdk_x%d = sdk_st[%d * sdk_npad + sdk_p0 + sdk_i];\n", v, v);
  sdk_cg_part_bind(b, o, "sdk_pp[%d * sdk_npad + sdk_p0 + sdk_i]", 0, "          ");
  bind_coupling(b, m, 0, "sdk_mv[%d][sdk_i]", "          ");
  bind_coupling(b, m, 1, "sdk_fp[%d * sdk_npad + sdk_p0 + sdk_i]", "          ");
  for (int j = 0; j < nn; j++)
    sdk_sb_printf(b, "          const real sdk_z%d = sdk_zb[%d][sdk_i];\n", j, j);
  sdk_cg_step(b, o, "          ");
  for (int v = 0; v < nv; v++)
    sdk_sb_printf(b, "          sdk_st[%d * sdk_npad + sdk_p0 + sdk_i] = sdk_x%d;\n", v, v);
  sdk_sb_puts(b, "        }\n"
                 "      }\n"
                 "    }\n"
                 "  }\n"
                 "  free(sdk_sums); free(sdk_part); free(sdk_pp); free(sdk_fp);\n"
                 "  return 0;\n"
                 "}\n");
  sdk_cg_red_free(&red);
}
