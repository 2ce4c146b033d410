/* CPU driver for systems of interacting particles (see sys.h).
 *
 * int sdk_advance_sys(st, npad, sv, ppg, ngrid, path0, step0, nsteps, seed,
 *                     nthreads, N, obs_every, obs, nloc, xchg, xu)
 * advances every system by nsteps Euler steps (nsteps = 0: nothing) and
 * writes the order parameter of the states it passes (see backend.h,
 * advance_sys).  Returns 0, or 1 when out of memory.
 *
 * One OpenMP parallel region runs all the steps; each step is
 *   - the sums of the reduced expressions per chunk of SDK_BLK particles of a
 *     system (chunks aligned to the system's start), then per system in chunk
 *     order: deterministic, whatever the thread count;
 *     over MPI ranks (mean field only) a shard holds the nloc particles from
 *     the global index path0 on, cut on chunks: it sums its own chunks, and
 *     xchg(xu, part) (the caller's, on the master thread) brings every other
 *     rank's chunk sums into part, so every rank adds the same numbers in the
 *     same order as one process holding all (xchg NULL: one shard);
 *   - the pair functions: particle i's sum over j in blocks of SDK_JB
 *     (float within a block, double across blocks), i vectorised;
 *   - the update per block of SDK_BLK particles.
 * Gaussians follow the system stream of rng/philox.h (domain 3): one Philox
 * block per four consecutive particles of a system and step.  When N is a
 * multiple of 4 those quads are aligned with the global index (quad p >> 2),
 * so a block of SDK_BLK particles draws SDK_BLK / 4 whole blocks; otherwise
 * every particle draws its quad's block and takes its lane. */
#include <stdio.h>

#include "codegen/common.h"
#include "codegen/drivers.h"
#include "codegen/expr_emit.h"
#include "codegen/sys.h"

/* sums of the reduced expressions over particles [i0, i0 + cnt) of one system */
static void emit_red_chunk(sdk_emit *em, const sdk_codegen_opts *o, const sdk_cg_red *red) {
  const sdk_model *m = o->model;
  sdk_em_puts(em, "\n");
  sdk_em_open(em,
              "static void sdk_red_chunk(const real *restrict sdk_st, sdk_i64 sdk_npad, const "
              "real *restrict sdk_sv, sdk_i64 sdk_g, const real *restrict sdk_pp, sdk_i64 "
              "sdk_i0, int sdk_cnt, sdk_i64 sdk_n, sdk_u64 sdk_seed, double *restrict sdk_out)");
  sdk_em_text(em, "real sdk_vals[SDK_NRED][SDK_BLK];\n"
                  "(void)sdk_sv; (void)sdk_g; (void)sdk_pp; (void)sdk_seed;\n");
  sdk_cg_sys_prologue(em, o, 0);
  sdk_em_line(em, "#pragma omp simd");
  sdk_em_open(em, "for (int sdk_i = 0; sdk_i < SDK_BLK; sdk_i++)");
  sdk_em_line(em, "const sdk_i64 sdk_p = sdk_i0 + (sdk_i < sdk_cnt ? sdk_i : 0);");
  sdk_cg_bind_vars(em, m, "sdk_st[%d * sdk_npad + sdk_p]");
  sdk_cg_part_bind(em, o, "sdk_pp[%d * sdk_npad + sdk_p]", 0);
  sdk_cg_bind_time(em, o, "sdk_t0", "sdk_tp0");
  for (int k = 0; k < red->n; k++) {
    sdk_em_start(em, "sdk_vals[%d][sdk_i] = ", k);
    sdk_cg_expr(em, o, red->e[k], red->line[k]);
    sdk_em_puts(em, ";\n");
  }
  sdk_em_close(em);
  for (int k = 0; k < red->n; k++)
    sdk_em_line(em,
                "{ double sdk_a = 0; for (int sdk_i = 0; sdk_i < sdk_cnt; sdk_i++) sdk_a += "
                "(double)sdk_vals[%d][sdk_i]; sdk_out[%d] = sdk_a; }",
                k, k);
  sdk_em_close(em);
}

/* pair functions of particles [i0, i0 + cnt) of the system starting at s0 */
static void emit_pair_chunk(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  sdk_em_puts(em, "\n");
  sdk_em_open(em, "static void sdk_pair_chunk(const real *restrict sdk_st, sdk_i64 sdk_npad, "
                  "const real *restrict sdk_sv, sdk_i64 sdk_g, const real *restrict sdk_pp, "
                  "sdk_i64 sdk_s0, sdk_i64 sdk_N, sdk_i64 sdk_i0, int sdk_cnt, sdk_i64 sdk_n, "
                  "sdk_u64 sdk_seed, real *restrict sdk_fp)");
  sdk_em_line(em, "(void)sdk_sv; (void)sdk_g; (void)sdk_pp; (void)sdk_seed;");
  sdk_cg_sys_prologue(em, o, 0);
  sdk_cg_bind_time(em, o, "sdk_t0", "sdk_tp0");
  sdk_em_text(em, "real sdk_xi[SDK_NV][SDK_BLK], sdk_ppi[SDK_NPART][SDK_BLK];\n"
                  "double sdk_accd[SDK_NPAIR][SDK_BLK];\n"
                  "for (int sdk_i = 0; sdk_i < SDK_BLK; sdk_i++) {\n"
                  "  const sdk_i64 sdk_p = sdk_i0 + (sdk_i < sdk_cnt ? sdk_i : 0);\n"
                  "  for (int sdk_v = 0; sdk_v < SDK_NV; sdk_v++) sdk_xi[sdk_v][sdk_i] = "
                  "sdk_st[sdk_v * sdk_npad + sdk_p];\n"
                  "  for (int sdk_k = 0; sdk_k < SDK_NPART; sdk_k++) sdk_ppi[sdk_k][sdk_i] = "
                  "sdk_pp ? sdk_pp[sdk_k * sdk_npad + sdk_p] : 0;\n"
                  "  for (int sdk_k = 0; sdk_k < SDK_NPAIR; sdk_k++) sdk_accd[sdk_k][sdk_i] = 0;\n"
                  "}\n");
  sdk_em_open(em, "for (sdk_i64 sdk_j0 = 0; sdk_j0 < sdk_N; sdk_j0 += SDK_JB)");
  sdk_em_text(em, "const sdk_i64 sdk_nj = sdk_N - sdk_j0 < SDK_JB ? sdk_N - sdk_j0 : SDK_JB;\n"
                  "real sdk_acc[SDK_NPAIR][SDK_BLK];\n"
                  "for (int sdk_k = 0; sdk_k < SDK_NPAIR; sdk_k++) for (int sdk_i = 0; sdk_i < "
                  "SDK_BLK; sdk_i++) sdk_acc[sdk_k][sdk_i] = 0;\n");
  sdk_em_open(em, "for (sdk_i64 sdk_jj = 0; sdk_jj < sdk_nj; sdk_jj++)");
  sdk_em_line(em, "const sdk_i64 sdk_q = sdk_s0 + sdk_j0 + sdk_jj;");
  for (int v = 0; v < m->nvars; v++)
    sdk_em_line(em, "const real sdk_xj%d = sdk_st[%d * sdk_npad + sdk_q]; (void)sdk_xj%d;", v, v,
                v);
  sdk_cg_part_bind(em, o, "sdk_pp[%d * sdk_npad + sdk_q]", 1);
  sdk_em_line(em, "#pragma omp simd");
  sdk_em_open(em, "for (int sdk_i = 0; sdk_i < SDK_BLK; sdk_i++)");
  sdk_cg_bind_vars(em, m, "sdk_xi[%d][sdk_i]");
  sdk_cg_part_bind(em, o, "sdk_ppi[%d][sdk_i]", 0);
  for (int k = 0; k < m->npair; k++) {
    sdk_em_start(em, "sdk_acc[%d][sdk_i] += ", k);
    sdk_cg_expr(em, o, m->pair[k], m->pair_line[k]);
    sdk_em_puts(em, ";\n");
  }
  sdk_em_close(em);
  sdk_em_close(em);
  sdk_em_text(em, "for (int sdk_k = 0; sdk_k < SDK_NPAIR; sdk_k++)\n"
                  "  for (int sdk_i = 0; sdk_i < SDK_BLK; sdk_i++) sdk_accd[sdk_k][sdk_i] += "
                  "(double)sdk_acc[sdk_k][sdk_i];\n");
  sdk_em_close(em);
  sdk_em_text(em, "for (int sdk_i = 0; sdk_i < sdk_cnt; sdk_i++)\n"
                  "  for (int sdk_k = 0; sdk_k < SDK_NPAIR; sdk_k++) sdk_fp[sdk_k * sdk_npad + "
                  "sdk_i0 + sdk_i] = (real)(sdk_accd[sdk_k][sdk_i] / (double)sdk_N);\n");
  sdk_em_close(em);
}

/* sdk_advance_sys up to its loop over the steps: buffers, the parallel
 * region, the per-particle parameters (Philox domain 2) */
static void emit_driver_head(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  sdk_em_puts(em, "\n");
  sdk_em_text(em, "int sdk_advance_sys(real *restrict sdk_st, sdk_i64 sdk_npad, const real "
                  "*restrict sdk_sv, sdk_i64 sdk_ppg,\n"
                  "                    sdk_i64 sdk_ngrid, sdk_i64 sdk_path0, sdk_i64 sdk_step0, "
                  "sdk_i64 sdk_nsteps, sdk_u64 sdk_seed,\n"
                  "                    int sdk_nthreads, sdk_i64 sdk_N, sdk_i64 sdk_obs_every, "
                  "double *sdk_obs,\n"
                  "                    sdk_i64 sdk_nloc, int (*sdk_xchg)(void *, double *), void "
                  "*sdk_xu) {\n");
  em->depth++;
  sdk_em_text(
      em, "const sdk_i64 sdk_ntot = sdk_ngrid * sdk_ppg, sdk_nsys = sdk_ntot / sdk_N, sdk_nch = "
          "(sdk_N + SDK_BLK - 1) / SDK_BLK;\n"
          "const sdk_i64 sdk_nblk = sdk_npad / SDK_BLK;\n"
          "/* this shard's chunks [sdk_q0, sdk_q1) (shards begin and end on chunks) */\n"
          "const sdk_i64 sdk_e1 = sdk_path0 + sdk_nloc;\n"
          "const sdk_i64 sdk_q0 = (sdk_path0 / sdk_N) * sdk_nch + (sdk_path0 % sdk_N) / SDK_BLK;\n"
          "const sdk_i64 sdk_q1 = sdk_e1 >= sdk_ntot ? sdk_nsys * sdk_nch : (sdk_e1 / sdk_N) * "
          "sdk_nch + (sdk_e1 % sdk_N) / SDK_BLK;\n"
          "double *sdk_sums = calloc((size_t)(sdk_nsys + 1) * SDK_NRED, sizeof(double));\n"
          "double *sdk_part = malloc((size_t)(sdk_nsys * sdk_nch) * SDK_NRED * sizeof(double));\n"
          "real *sdk_pp = malloc((size_t)sdk_npad * SDK_NPART * sizeof(real));\n"
          "real *sdk_fp = calloc((size_t)sdk_npad * SDK_NPAIR, sizeof(real));\n"
          "if (!sdk_sums || !sdk_part || !sdk_pp || !sdk_fp) {\n"
          "  free(sdk_sums); free(sdk_part); free(sdk_pp); free(sdk_fp);\n"
          "  return 1;\n"
          "}\n"
          "sdk_i64 sdk_orow = 0;\n"
          "(void)sdk_orow; (void)sdk_obs; (void)sdk_obs_every;\n"
          "#pragma omp parallel num_threads(sdk_threads(sdk_nthreads))\n");
  sdk_em_block(em);
  int ndraw = 0;
  for (int k = 0; k < m->npart; k++)
    ndraw += !sdk_cg_part_const(o, k);
  if (ndraw > 0) {
    sdk_em_text(em, "/* per-particle parameters (Philox domain 2) */\n"
                    "#pragma omp for schedule(static)\n");
    sdk_em_open(em, "for (sdk_i64 sdk_p = 0; sdk_p < sdk_npad; sdk_p++)");
    sdk_em_text(em, "sdk_i64 sdk_g = (sdk_path0 + sdk_p) / sdk_ppg; if (sdk_g >= sdk_ngrid) "
                    "sdk_g = sdk_ngrid - 1;\n"
                    "(void)sdk_g;\n");
    sdk_cg_params(em, o, "sdk_sv[sdk_g * SDK_NSV + %d]");
    sdk_em_line(em, "(void)sdk_sqdt;");
    for (int k = 0; k < m->npart; k++) {
      if (sdk_cg_part_const(o, k)) continue;
      char dst[64];
      snprintf(dst, sizeof dst, "sdk_pp[%d * sdk_npad + sdk_p]", k);
      sdk_cg_part_draw(em, o, k, "sdk_path0 + sdk_p", dst);
    }
    sdk_em_close(em);
  }
}

/* the sums over each system at step n (and the order parameter of that state) */
static void emit_sums(sdk_emit *em, const sdk_cg_red *red) {
  sdk_em_text(em, "/* sums over each system at step n */\n"
                  "#pragma omp for schedule(static)\n"
                  "for (sdk_i64 sdk_q = sdk_q0; sdk_q < sdk_q1; sdk_q++) {\n"
                  "  const sdk_i64 sdk_s = sdk_q / sdk_nch, sdk_c = sdk_q - sdk_s * sdk_nch;\n"
                  "  const int sdk_cnt = (int)(sdk_N - sdk_c * SDK_BLK < SDK_BLK ? sdk_N - "
                  "sdk_c * SDK_BLK : SDK_BLK);\n"
                  "  sdk_red_chunk(sdk_st, sdk_npad, sdk_sv, (sdk_s * sdk_N) / sdk_ppg, "
                  "sdk_pp, sdk_s * sdk_N + sdk_c * SDK_BLK - sdk_path0, sdk_cnt, sdk_n, sdk_seed,\n"
                  "                sdk_part + sdk_q * SDK_NRED);\n"
                  "}\n"
                  "if (sdk_xchg) {\n"
                  "  /* the other ranks' chunks (MPI from the master thread only) */\n"
                  "#pragma omp master\n"
                  "  sdk_xchg(sdk_xu, sdk_part);\n"
                  "#pragma omp barrier\n"
                  "}\n"
                  "#pragma omp for schedule(static)\n"
                  "for (sdk_i64 sdk_s = 0; sdk_s < sdk_nsys; sdk_s++)\n"
                  "  for (int sdk_k = 0; sdk_k < SDK_NRED; sdk_k++) {\n"
                  "    double sdk_a = 0;\n"
                  "    for (sdk_i64 sdk_c = 0; sdk_c < sdk_nch; sdk_c++) sdk_a += "
                  "sdk_part[(sdk_s * sdk_nch + sdk_c) * SDK_NRED + sdk_k];\n"
                  "    sdk_sums[sdk_s * SDK_NRED + sdk_k] = sdk_a;\n"
                  "  }\n");
  if (red->ocos < 0) return;
  sdk_em_text(em, "/* order parameter of the state at step n: per grid point, over its systems,\n"
                  " * sums of |Z|, |Z|^2, Re Z, Im Z with Z = <exp(i k x)> of the system */\n");
  sdk_em_open(em, "if (sdk_obs && (sdk_nsteps == 0 || (sdk_n > sdk_step0 && sdk_obs_every > 0 && "
                  "sdk_n %% sdk_obs_every == 0)))");
  sdk_em_line(em, "#pragma omp single");
  sdk_em_block(em);
  sdk_em_line(em, "const sdk_i64 sdk_spg = sdk_ppg / sdk_N;");
  sdk_em_open(em, "for (sdk_i64 sdk_g = 0; sdk_g < sdk_ngrid; sdk_g++)");
  sdk_em_line(em, "double sdk_a = 0, sdk_a2 = 0, sdk_re = 0, sdk_im = 0;");
  sdk_em_open(em, "for (sdk_i64 sdk_s = sdk_g * sdk_spg; sdk_s < (sdk_g + 1) * sdk_spg; sdk_s++)");
  sdk_em_line(em, "const double sdk_zr = sdk_sums[sdk_s * SDK_NRED + %d] / (double)sdk_N;",
              red->ocos);
  sdk_em_line(em, "const double sdk_zi = sdk_sums[sdk_s * SDK_NRED + %d] / (double)sdk_N;",
              red->osin);
  sdk_em_text(em, "const double sdk_z2 = sdk_zr * sdk_zr + sdk_zi * sdk_zi;\n"
                  "sdk_a += sqrt(sdk_z2); sdk_a2 += sdk_z2; sdk_re += sdk_zr; sdk_im += sdk_zi;\n");
  sdk_em_close(em);
  sdk_em_text(em, "double *sdk_o = sdk_obs + (sdk_orow * sdk_ngrid + sdk_g) * 4;\n"
                  "sdk_o[0] = sdk_a; sdk_o[1] = sdk_a2; sdk_o[2] = sdk_re; sdk_o[3] = sdk_im;\n");
  sdk_em_close(em);
  sdk_em_line(em, "sdk_orow++;");
  sdk_em_close(em);
  sdk_em_close(em);
}

/* the pair functions at step n */
static void emit_pairs(sdk_emit *em) {
  sdk_em_text(em, "/* pair functions at step n */\n"
                  "#pragma omp for schedule(dynamic, 1)\n"
                  "for (sdk_i64 sdk_q = 0; sdk_q < sdk_nsys * sdk_nch; sdk_q++) {\n"
                  "  const sdk_i64 sdk_s = sdk_q / sdk_nch, sdk_c = sdk_q - sdk_s * sdk_nch;\n"
                  "  const int sdk_cnt = (int)(sdk_N - sdk_c * SDK_BLK < SDK_BLK ? sdk_N - "
                  "sdk_c * SDK_BLK : SDK_BLK);\n"
                  "  sdk_pair_chunk(sdk_st, sdk_npad, sdk_sv, (sdk_s * sdk_N) / sdk_ppg, "
                  "sdk_pp, sdk_s * sdk_N, sdk_N, sdk_s * sdk_N + sdk_c * SDK_BLK, sdk_cnt, sdk_n,\n"
                  "                 sdk_seed, sdk_fp);\n"
                  "}\n");
}

/* this step's noise of a block of particles (domain 3, by quads of a system) */
static void emit_noise(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_noise_type *nz = sdk_cg_noise(o);
  int vpb = nz->values_per_block;
  sdk_em_text(em, "/* this step's Gaussians (domain 3, by quads of a system) */\n"
                  "real sdk_zb[SDK_NN][SDK_BLK];\n");
  sdk_em_open(em, "for (int sdk_j = 0; sdk_j < SDK_NN; sdk_j++)");
  sdk_em_line(em, "const sdk_u64 sdk_k = (sdk_u64)sdk_n * SDK_NN + (sdk_u64)sdk_j;");
  /* N % 4 == 0: the quads are aligned with the global index (quad p >> 2) */
  sdk_em_open(em, "if (sdk_N %% 4 == 0)");
  sdk_em_line(em, "#pragma omp simd");
  sdk_em_open(em, "for (int sdk_q = 0; sdk_q < SDK_BLK / 4; sdk_q++)");
  sdk_em_line(em, "real sdk_g4[%d];", vpb);
  sdk_noise_block(em, nz, "sdk_seed", "(sdk_u64)((sdk_path0 + sdk_p0) >> 2) + (sdk_u64)sdk_q",
                  "sdk_k", 3, "sdk_g4");
  sdk_em_line(em, "for (int sdk_l = 0; sdk_l < 4; sdk_l++) sdk_zb[sdk_j][4 * sdk_q + sdk_l] = "
                  "sdk_g4[sdk_l];");
  sdk_em_close(em);
  sdk_em_reopen(em, "else");
  sdk_em_line(em, "const sdk_i64 sdk_nq = (sdk_N + 3) / 4;");
  sdk_em_open(em, "for (int sdk_i = 0; sdk_i < SDK_BLK; sdk_i++)");
  sdk_em_line(em, "const sdk_i64 sdk_p = sdk_path0 + sdk_p0 + sdk_i, sdk_s = sdk_p / sdk_N, sdk_li "
                  "= sdk_p - sdk_s * sdk_N;");
  sdk_em_line(em, "real sdk_g4[%d];", vpb);
  sdk_noise_block(em, nz, "sdk_seed", "(sdk_u64)(sdk_s * sdk_nq + (sdk_li >> 2))", "sdk_k", 3,
                  "sdk_g4");
  sdk_em_line(em, "sdk_zb[sdk_j][sdk_i] = sdk_g4[sdk_li & 3];");
  sdk_em_close(em);
  sdk_em_close(em);
  sdk_em_close(em);
}

/* one step of every particle, by blocks of SDK_BLK */
static void emit_update(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  int nv = m->nvars;
  sdk_em_text(em, "/* one Euler step of every particle */\n"
                  "#pragma omp for schedule(static)\n");
  sdk_em_open(em, "for (sdk_i64 sdk_blk = 0; sdk_blk < sdk_nblk; sdk_blk++)");
  sdk_em_line(em, "const sdk_i64 sdk_p0 = sdk_blk * SDK_BLK;");
  if (m->nnoise > 0) emit_noise(em, o);
  sdk_em_text(em,
              "real sdk_mv[SDK_NMEAN][SDK_BLK], sdk_spv[SDK_NSV][SDK_BLK];\n"
              "{\n"
              "  sdk_i64 sdk_s = (sdk_path0 + sdk_p0) / sdk_N, sdk_bnd = (sdk_s + 1) * sdk_N;\n"
              "  for (int sdk_i = 0; sdk_i < SDK_BLK; sdk_i++) {\n"
              "    if (sdk_path0 + sdk_p0 + sdk_i >= sdk_bnd) { sdk_s++; sdk_bnd += sdk_N; }\n"
              "    const sdk_i64 sdk_sr = sdk_s < sdk_nsys ? sdk_s : sdk_nsys; /* padding: the "
              "zero row */\n"
              "    for (int sdk_k = 0; sdk_k < SDK_NMEAN; sdk_k++)\n"
              "      sdk_mv[sdk_k][sdk_i] = (real)(sdk_sums[sdk_sr * SDK_NRED + sdk_k] / "
              "(double)sdk_N);\n"
              "    sdk_i64 sdk_g = (sdk_path0 + sdk_p0 + sdk_i) / sdk_ppg; if (sdk_g >= "
              "sdk_ngrid) sdk_g = sdk_ngrid - 1;\n"
              "    for (int sdk_j = 0; sdk_j < SDK_NSV; sdk_j++) sdk_spv[sdk_j][sdk_i] = sdk_sv ? "
              "sdk_sv[sdk_g * SDK_NSV + sdk_j] : 0;\n"
              "  }\n"
              "}\n"
              "#pragma omp simd\n");
  sdk_em_open(em, "for (int sdk_i = 0; sdk_i < SDK_BLK; sdk_i++)");
  sdk_cg_params(em, o, "sdk_spv[%d][sdk_i]");
  sdk_cg_step_time(em, o, "sdk_n", "");
  for (int v = 0; v < nv; v++)
    sdk_em_line(em, "real sdk_x%d = sdk_st[%d * sdk_npad + sdk_p0 + sdk_i];", v, v);
  sdk_cg_part_bind(em, o, "sdk_pp[%d * sdk_npad + sdk_p0 + sdk_i]", 0);
  sdk_cg_bind_coupling(em, m, 0, "sdk_mv[%d][sdk_i]");
  sdk_cg_bind_coupling(em, m, 1, "sdk_fp[%d * sdk_npad + sdk_p0 + sdk_i]");
  for (int j = 0; j < m->nnoise; j++)
    sdk_em_line(em, "const real sdk_z%d = sdk_zb[%d][sdk_i];", j, j);
  o->scheme->emit_step(em, o, NULL);
  for (int v = 0; v < nv; v++)
    sdk_em_line(em, "sdk_st[%d * sdk_npad + sdk_p0 + sdk_i] = sdk_x%d;", v, v);
  sdk_em_close(em);
  sdk_em_close(em);
}

void sdk_cg_sys_cpu(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  sdk_cg_red red;
  if (sdk_cg_red_build(&red, o) != 0) {
    em->b->oom = 1;
    return;
  }
  int nred = red.n, nmean = m->nmean, npair = m->npair;
  sdk_em_puts(em, "\n/* ---- systems of interacting particles ---- */\n");
  sdk_em_line(em, "#include <stdlib.h>");
  sdk_em_line(em, "#define SDK_NRED %d", nred > 0 ? nred : 1);
  sdk_em_line(em, "#define SDK_NMEAN %d", nmean > 0 ? nmean : 1);
  sdk_em_line(em, "#define SDK_NPAIR %d", npair > 0 ? npair : 1);
  sdk_em_line(em, "#define SDK_NPART %d", m->npart > 0 ? m->npart : 1);
  sdk_em_line(em, "#define SDK_JB 256");
  sdk_em_line(em, "int sdk_sys_nred(void) { return %d; }", nred);
  emit_red_chunk(em, o, &red);
  if (npair > 0) emit_pair_chunk(em, o);
  emit_driver_head(em, o);
  sdk_em_open(em, "for (sdk_i64 sdk_n = sdk_step0;; sdk_n++)");
  emit_sums(em, &red);
  sdk_em_line(em, "if (sdk_n >= sdk_step0 + sdk_nsteps) break;");
  if (npair > 0) emit_pairs(em);
  emit_update(em, o);
  sdk_em_close(em); /* steps */
  sdk_em_close(em); /* parallel region */
  sdk_em_line(em, "free(sdk_sums); free(sdk_part); free(sdk_pp); free(sdk_fp);");
  sdk_em_line(em, "return 0;");
  sdk_em_close(em);
  sdk_cg_red_free(&red);
}
