/* CUDA driver for systems of interacting particles (see sys.c).
 *
 * One kernel launch per Euler step, fused (the paper's PROG3, without its two
 * host round trips per step):
 *
 *   sdk_sys_step(st_in, st_out, ..., n, mode, sums_in, sums_out, part, cnt, ...)
 *
 * Block b = s * nchunk + c handles chunk c (SDK_ITER * SDK_STPB consecutive
 * particles) of system s.  mode 1: every thread reads x_n of its particles
 * and the system's sums of step n (sums_in, written by the previous launch),
 * computes the [pair] functions from tiles of the system's x_n in shared
 * memory (the paper's UpdateRHS: tile = block), takes one Euler step and
 * writes x_{n+1} (st_out; st_in == st_out for mean-field models, whose
 * particles depend on their own x only); then the block sums the reduced
 * expressions of x_{n+1} (warp shuffles in float, the block's eight warps in
 * double) into part[b].  The last block of a system to finish (threadfence
 * and an atomic counter) adds the system's part[] in chunk order into
 * sums_out (the sums of step n + 1) and, when the order parameter is
 * observed this step, the system's Z; the last system of a grid point then
 * adds its systems' |Z|, |Z|^2, Z in system order into obs_row.  Every sum
 * has a fixed order: results do not depend on scheduling.  mode 0 only
 * reduces x_n (priming sums_out before the first step).
 *
 * Gaussians follow the stream contract exactly (Gaussian k = n * NN + j of
 * the particle is lane k & 3 of Philox block k >> 2), one Philox call per
 * particle and step; per-particle parameters are recomputed from Philox
 * domain 2 every step rather than stored (no extra memory traffic). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen_internal.h"

#define STPB 256

static void emit_t(sdk_strbuf *b, const sdk_codegen_opts *o, const char *n) {
  if (o->spp > 0)
    sdk_sb_printf(b, "(real)((%s) %% %lldLL) * sdk_dt", n, (long long)o->spp);
  else
    sdk_sb_printf(b, "(real)(%s) * sdk_dt", n);
}

/* seg with @GP@ and @ACT@ replaced */
static void emit_seg(sdk_strbuf *b, const char *seg, const char *gp, const char *act) {
  for (const char *p = seg ? seg : ""; *p;) {
    if (!strncmp(p, "@GP@", 4)) {
      sdk_sb_printf(b, "(%s)", gp);
      p += 4;
    } else if (!strncmp(p, "@ACT@", 5)) {
      sdk_sb_printf(b, "(%s)", act);
      p += 5;
    } else {
      sdk_sb_putn(b, p, 1);
      p++;
    }
  }
}

void sdk_cg_emit_sys_cuda(sdk_strbuf *b, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  int nv = m->nvars, nn = m->nnoise, nmean = m->nmean, npair = m->npair;
  sdk_cg_red red;
  sdk_cg_red_build(&red, o);
  int nred = red.n;
  /* particles per thread: loads of all of them in flight at once; for pairs one
   * (tile = block).  SDK_SYS_ITER overrides it for tuning (1..16). */
  int64_t N = o->particles;
  int iter = npair > 0               ? 1
             : N >= (int64_t)1 << 20 ? 8
             : N >= (int64_t)1 << 16 ? 4
             : N >= (int64_t)1 << 12 ? 2
                                     : 1;
  const char *ie = getenv("SDK_SYS_ITER");
  if (ie && npair == 0 && atoi(ie) >= 1 && atoi(ie) <= 16) iter = atoi(ie);

  /* blocks per multiprocessor to keep resident (registers): measured on the
   * H100 (docs/BENCHMARKS.md); SDK_SYS_MINB overrides it */
  int minb = iter >= 8 ? 3 : iter >= 4 ? 5 : 4;
  const char *mbe = getenv("SDK_SYS_MINB");
  if (mbe && atoi(mbe) >= 1 && atoi(mbe) <= 8) minb = atoi(mbe);
  sdk_sb_printf(b, "\n#define SDK_MINB %d\n", minb);
  sdk_sb_printf(b,
                "\n/* ---- systems of interacting particles ---- */\n"
                "#define SDK_STPB %d\n#define SDK_ITER %d\n#define SDK_NRED %d\n",
                STPB, iter, nred > 0 ? nred : 1);
  /* what the backend needs to know: nred, npair, ocos, osin, iter, block size, nmean */
  sdk_sb_printf(
      b, "extern \"C\" __device__ const int sdk_sys_info[8] = {%d, %d, %d, %d, %d, %d, %d, 0};\n",
      nred, npair, red.ocos, red.osin, iter, STPB, nmean);

  /* one Gaussian of the stream: lane k & 3 of block k >> 2 (as sdk_gauss4) */
  sdk_sb_printf(b, "#define sdk_gauss2 sdk_gauss2_%c\n", o->single ? 'f' : 'd');
  sdk_sb_puts(b,
              "static __device__ __forceinline__ real sdk_gauss1(sdk_u64 sdk_seed, sdk_u64 sdk_p, "
              "sdk_u64 sdk_k) {\n"
              "  real sdk_g[2];\n"
              "  sdk_gauss2(sdk_seed, sdk_p, sdk_k >> 2, 0, (sdk_u32)(sdk_k >> 1) & 1u, sdk_g);\n"
              "  return (sdk_k & 1) ? sdk_g[1] : sdk_g[0];\n"
              "}\n");
  /* a Philox round as in rng/philox.h (a 64-bit product instead of __umulhi +
   * multiply measured the same on the H100) */
  sdk_sb_puts(b, "#define sdk_round sdk_philox_round_\n");
  sdk_sb_printf(b, "#define sdk_boxmuller2 sdk_boxmuller2_%c\n", o->single ? 'f' : 'd');
  /* the last-block-done counter: an acquire-release atomic (cheaper than a
   * full __threadfence, which is a sequentially consistent fence) */
  sdk_sb_puts(b,
              "static __device__ __forceinline__ unsigned sdk_atom_inc_acqrel(unsigned *sdk_p) {\n"
              "  unsigned sdk_old;\n"
              "  asm volatile(\"atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;\" : \"=r\"(sdk_old) : "
              "\"l\"(sdk_p) : \"memory\");\n"
              "  return sdk_old;\n"
              "}\n");

  sdk_sb_puts(b, "\nextern \"C\" __global__ void __launch_bounds__(SDK_STPB, SDK_MINB)\n"
                 "sdk_sys_step(const real *sdk_st_in, real *sdk_st_out, sdk_i64 sdk_npad, const "
                 "real *__restrict__ sdk_sv,\n"
                 "             sdk_i64 sdk_ppg, sdk_i64 sdk_N, sdk_i64 sdk_spg, int sdk_nchunk, "
                 "int sdk_nblk, int sdk_cpb, sdk_i64 sdk_n,\n"
                 "             sdk_u64 sdk_seed,\n"
                 "             int sdk_mode, const double *__restrict__ sdk_sums_in, double "
                 "*sdk_sums_out, double *sdk_part,\n"
                 "             unsigned *sdk_cnt, double *sdk_zsys, unsigned *sdk_gcnt, double "
                 "*sdk_obs_row) {\n"
                 "  __shared__ double sdk_sred[SDK_STPB / 32][SDK_NRED];\n"
                 "  __shared__ double sdk_sz[SDK_STPB / 32][4];\n"
                 "  __shared__ int sdk_slast;\n");
  if (npair > 0) sdk_sb_printf(b, "  __shared__ real sdk_sx[%d][SDK_STPB];\n", nv);
  int npj = 0;
  for (int k = 0; k < m->npart; k++)
    if (npair > 0 && sdk_cg_pair_uses(m, SDK_OTHER_PARTJ, k) && !sdk_cg_part_const(o, k)) npj++;
  if (npj > 0) sdk_sb_printf(b, "  __shared__ real sdk_spj[%d][SDK_STPB];\n", m->npart);
  sdk_sb_puts(b, "  const int sdk_tid = threadIdx.x;\n"
                 "  const sdk_i64 sdk_s = (sdk_i64)blockIdx.x / sdk_nblk;\n"
                 "  const int sdk_c = (int)((sdk_i64)blockIdx.x - sdk_s * sdk_nblk); /* block of "
                 "the system */\n"
                 "  const sdk_i64 sdk_g = sdk_s / sdk_spg;\n"
                 "  (void)sdk_sv; (void)sdk_g; (void)sdk_sums_in; (void)sdk_ppg;\n");
  sdk_cg_params(b, o, "sdk_sv[sdk_g * SDK_NSV + %d]", "  ");
  sdk_sb_puts(b, "  (void)sdk_sqdt;\n  const real sdk_t0 = ");
  emit_t(b, o, "sdk_n");
  sdk_sb_puts(b, ", sdk_t1 = ");
  emit_t(b, o, "sdk_n + 1");
  sdk_sb_puts(b, ";\n  (void)sdk_t1;\n  const double sdk_invN = 1.0 / (double)sdk_N;\n");
  for (int k = 0; k < nmean; k++)
    sdk_sb_printf(b,
                  "  const real %s = sdk_mode ? (real)(sdk_sums_in[sdk_s * SDK_NRED + %d] * "
                  "sdk_invN) : (real)0; (void)%s;\n",
                  m->mean_names[k], k, m->mean_names[k]);
  sdk_sb_puts(
      b, "  float sdk_acc[SDK_NRED];\n"
         "#pragma unroll\n"
         "  for (int sdk_k = 0; sdk_k < SDK_NRED; sdk_k++) sdk_acc[sdk_k] = 0.0f;\n"
         "  /* chunks (of SDK_ITER * SDK_STPB particles) sdk_c * cpb .. + cpb - 1: the\n"
         "   * block's sums, barrier and atomic are paid once for them all */\n"
         "  for (int sdk_cc = 0; sdk_cc < sdk_cpb; sdk_cc++) {\n"
         "  const sdk_i64 sdk_chunk = (sdk_i64)sdk_c * sdk_cpb + sdk_cc;\n"
         "  if (sdk_chunk >= sdk_nchunk) break; /* (the same for the whole block) */\n"
         "  const sdk_i64 sdk_base = sdk_s * sdk_N + sdk_chunk * (SDK_ITER * SDK_STPB) + sdk_tid;\n"
         "  const sdk_i64 sdk_rem = sdk_N - sdk_chunk * (SDK_ITER * SDK_STPB) - sdk_tid;\n");
  /* The particles of the thread, emitted twice for mean-field models: for a
   * whole chunk with no bounds checks and constant offsets, and for the last,
   * partial one with them (@GP@: the particle's index, @ACT@: is it one). */
  sdk_strbuf segb;
  sdk_sb_init(&segb);
  sdk_strbuf *const b0 = b;
  b = &segb;
  sdk_sb_puts(b, "  {\n");
  /* all loads first: SDK_ITER of them in flight per thread (the stores below
   * may alias them, so the compiler would not hoist them itself) */
  sdk_sb_printf(b,
                "  real sdk_xv[SDK_ITER][%d];\n#pragma unroll\n"
                "  for (int sdk_it = 0; sdk_it < SDK_ITER; sdk_it++) {\n"
                "    const sdk_i64 sdk_gp = @GP@;\n",
                nv);
  for (int v = 0; v < nv; v++)
    sdk_sb_printf(b, "    sdk_xv[sdk_it][%d] = sdk_st_in[%d * sdk_npad + sdk_gp];\n", v, v);
  sdk_sb_puts(b, "  }\n");
  /* (the loads are in flight while the Gaussians are computed) */
  if (nn > 0) {
    /* the Gaussians of step n of all the thread's particles: their Philox
     * blocks (the same block index, different particles) in lockstep, so the
     * key schedule is shared and the ITER chains of rounds interleave */
    sdk_sb_printf(b, "  real sdk_zv[SDK_ITER][%d];\n  if (sdk_mode) {\n", nn);
    for (int j = 0; j < nn; j++) {
      sdk_sb_printf(
          b,
          "    {\n"
          "      const sdk_u64 sdk_kj = (sdk_u64)sdk_n * SDK_NN + %d, sdk_blk = sdk_kj >> 2;\n"
          "      sdk_u32 sdk_ph[SDK_ITER][4];\n"
          "#pragma unroll\n"
          "      for (int sdk_it = 0; sdk_it < SDK_ITER; sdk_it++) {\n"
          "        const sdk_u64 sdk_gp = (sdk_u64)(sdk_base + sdk_it * SDK_STPB); /* (any value "
          "for a non-particle) */\n"
          "        sdk_ph[sdk_it][0] = (sdk_u32)sdk_blk;\n"
          "        sdk_ph[sdk_it][1] = (sdk_u32)(sdk_blk >> 32) & 0x7fffffffu;\n"
          "        sdk_ph[sdk_it][2] = (sdk_u32)sdk_gp;\n"
          "        sdk_ph[sdk_it][3] = (sdk_u32)(sdk_gp >> 32);\n"
          "      }\n"
          "      sdk_u32 sdk_k0 = (sdk_u32)sdk_seed, sdk_k1 = (sdk_u32)(sdk_seed >> 32);\n"
          "#pragma unroll\n"
          "      for (int sdk_r = 0; sdk_r < 10; sdk_r++) {\n"
          "#pragma unroll\n"
          "        for (int sdk_it = 0; sdk_it < SDK_ITER; sdk_it++) sdk_round(sdk_ph[sdk_it], "
          "sdk_k0, sdk_k1);\n"
          "        sdk_k0 += 0x9E3779B9u;\n"
          "        sdk_k1 += 0xBB67AE85u;\n"
          "      }\n"
          "      const int sdk_hi = (int)(sdk_kj >> 1) & 1, sdk_odd = (int)(sdk_kj & 1);\n"
          "#pragma unroll\n"
          "      for (int sdk_it = 0; sdk_it < SDK_ITER; sdk_it++) {\n"
          "        real sdk_g2[2];\n"
          "        sdk_boxmuller2(sdk_hi ? sdk_ph[sdk_it][2] : sdk_ph[sdk_it][0],\n"
          "                       sdk_hi ? sdk_ph[sdk_it][3] : sdk_ph[sdk_it][1], sdk_g2);\n"
          "        sdk_zv[sdk_it][%d] = sdk_odd ? sdk_g2[1] : sdk_g2[0];\n"
          "      }\n"
          "    }\n",
          j, j);
    }
    sdk_sb_puts(b, "  }\n");
  }

  sdk_sb_puts(b, "#pragma unroll\n"
                 "  for (int sdk_it = 0; sdk_it < SDK_ITER; sdk_it++) {\n"
                 "    const int sdk_act = @ACT@;\n"
                 "    const sdk_i64 sdk_gp = @GP@;\n");
  for (int v = 0; v < nv; v++)
    sdk_sb_printf(b, "    real sdk_x%d = sdk_xv[sdk_it][%d];\n", v, v);
  /* per-particle parameters: constants, or drawn (domain 2, recomputed) */
  for (int k = 0; k < m->npart; k++) {
    if (sdk_cg_part_const(o, k)) continue;
    char dst[96];
    snprintf(dst, sizeof dst, "sdk_pp%d", k);
    sdk_sb_printf(b, "    real sdk_pp%d;\n", k);
    sdk_cg_part_draw(b, o, k, "sdk_gp", dst, "    ");
  }
  sdk_cg_part_bind(b, o, "sdk_pp%d", 0, "    ");

  if (npair > 0) {
    /* F_i = (1/N) sum_j f(x_i, x_j): tiles of the system's x_n in shared memory */
    sdk_sb_printf(b, "    double sdk_F[%d];\n", npair);
    for (int k = 0; k < npair; k++)
      sdk_sb_printf(b, "    sdk_F[%d] = 0.0;\n", k);
    sdk_sb_puts(b, "    if (sdk_mode) {\n"
                   "      const int sdk_ntile = (int)((sdk_N + SDK_STPB - 1) / SDK_STPB);\n"
                   "      for (int sdk_tile = 0; sdk_tile < sdk_ntile; sdk_tile++) {\n"
                   "        const sdk_i64 sdk_lj = (sdk_i64)sdk_tile * SDK_STPB + sdk_tid;\n"
                   "        __syncthreads();\n"
                   "        if (sdk_lj < sdk_N) {\n"
                   "          const sdk_i64 sdk_q = sdk_s * sdk_N + sdk_lj;\n");
    for (int v = 0; v < nv; v++)
      sdk_sb_printf(b, "          sdk_sx[%d][sdk_tid] = sdk_st_in[%d * sdk_npad + sdk_q];\n", v, v);
    for (int k = 0; k < m->npart; k++) {
      if (!sdk_cg_pair_uses(m, SDK_OTHER_PARTJ, k) || sdk_cg_part_const(o, k)) continue;
      char dst[64];
      snprintf(dst, sizeof dst, "sdk_spj[%d][sdk_tid]", k);
      sdk_cg_part_draw(b, o, k, "sdk_q", dst, "          ");
    }
    sdk_sb_puts(b, "        }\n"
                   "        __syncthreads();\n"
                   "        const int sdk_cntj = (int)(sdk_N - (sdk_i64)sdk_tile * SDK_STPB < "
                   "SDK_STPB ? sdk_N - (sdk_i64)sdk_tile * SDK_STPB : SDK_STPB);\n");
    for (int k = 0; k < npair; k++)
      sdk_sb_printf(b, "        float sdk_a%d = 0.0f;\n", k);
    for (int v = 0; v < nv; v++)
      sdk_sb_printf(b, "        const real %s = sdk_x%d; (void)%s;\n", m->vars[v], v, m->vars[v]);
    sdk_sb_puts(b, "        const real t = sdk_t0; (void)t;\n");
    for (int pass = 0; pass < 2; pass++) {
      /* a full tile with a constant trip count (unrolled), then a partial one.
       * (Taking one pair in eight through a polynomial sin on the FMA pipe
       * instead of the special-function unit measured 4-8% slower on the
       * H100: docs/BENCHMARKS.md.) */
      if (pass == 0)
        sdk_sb_puts(b, "        if (sdk_cntj == SDK_STPB) {\n#pragma unroll 8\n          for (int "
                       "sdk_jj = 0; sdk_jj < SDK_STPB; sdk_jj++) {\n");
      else
        sdk_sb_puts(
            b, "        } else {\n          for (int sdk_jj = 0; sdk_jj < sdk_cntj; sdk_jj++) {\n");
      for (int v = 0; v < nv; v++)
        sdk_sb_printf(b, "            const real sdk_xj%d = sdk_sx[%d][sdk_jj]; (void)sdk_xj%d;\n",
                      v, v, v);
      char fmt[32];
      snprintf(fmt, sizeof fmt, "sdk_spj[%%d][sdk_jj]");
      sdk_cg_part_bind(b, o, fmt, 1, "            ");
      for (int k = 0; k < npair; k++) {
        sdk_sb_printf(b, "            sdk_a%d += ", k);
        sdk_cg_emit_expr(b, o, m->pair[k], m->pair_line[k]);
        sdk_sb_puts(b, ";\n");
      }
      sdk_sb_puts(b, "          }\n");
    }
    sdk_sb_puts(b, "        }\n");
    for (int k = 0; k < npair; k++)
      sdk_sb_printf(b, "        sdk_F[%d] += (double)sdk_a%d;\n", k, k);
    sdk_sb_puts(b, "      }\n    }\n");
    for (int k = 0; k < npair; k++)
      sdk_sb_printf(b, "    const real %s = (real)(sdk_F[%d] * sdk_invN); (void)%s;\n",
                    m->pair_names[k], k, m->pair_names[k]);
  }

  /* the Euler step */
  sdk_sb_puts(b, "    if (sdk_mode) {\n");
  for (int j = 0; j < nn; j++)
    sdk_sb_printf(b, "      const real sdk_z%d = sdk_zv[sdk_it][%d];\n", j, j);
  sdk_cg_step(b, o, "      ");
  for (int v = 0; v < nv; v++)
    sdk_sb_printf(b, "      if (sdk_act) sdk_st_out[%d * sdk_npad + sdk_gp] = sdk_x%d;\n", v, v);
  sdk_sb_puts(b, "    }\n");
  /* the reduced expressions of the new state */
  if (nred > 0) {
    sdk_sb_puts(b, "    if (sdk_act) {\n");
    for (int v = 0; v < nv; v++)
      sdk_sb_printf(b, "      const real %s = sdk_x%d; (void)%s;\n", m->vars[v], v, m->vars[v]);
    sdk_sb_puts(b, "      const real t = sdk_mode ? sdk_t1 : sdk_t0; (void)t;\n");
    for (int k = 0; k < nred; k++) {
      sdk_sb_printf(b, "      sdk_acc[%d] += (float)", k);
      sdk_cg_emit_expr(b, o, red.e[k], red.line[k]);
      sdk_sb_puts(b, ";\n");
    }
    sdk_sb_puts(b, "    }\n");
  }
  sdk_sb_puts(b, "  }\n  }\n");
  b = b0;
  static const char *const GP_CHECKED =
      "sdk_it * SDK_STPB < sdk_rem ? sdk_base + sdk_it * SDK_STPB : sdk_s * sdk_N";
  static const char *const ACT_CHECKED = "sdk_it * SDK_STPB < sdk_rem";
  if (npair == 0) {
    sdk_sb_puts(b, "  if (sdk_rem >= SDK_ITER * SDK_STPB) {\n");
    emit_seg(b, segb.s, "sdk_base + sdk_it * SDK_STPB", "1");
    sdk_sb_puts(b, "  } else\n");
  }
  /* (pair models: no branch around the tiles' __syncthreads) */
  emit_seg(b, segb.s, GP_CHECKED, ACT_CHECKED);
  sdk_sb_puts(b, "  }\n"); /* chunks */
  sdk_sb_free(&segb);
  if (nred == 0) {
    sdk_sb_puts(b, "  (void)sdk_acc; (void)sdk_sred; (void)sdk_sz; (void)sdk_slast; "
                   "(void)sdk_sums_out; (void)sdk_part; (void)sdk_cnt;\n"
                   "  (void)sdk_zsys; (void)sdk_gcnt; (void)sdk_obs_row;\n}\n");
    sdk_cg_red_free(&red);
    return;
  }
  /* block sums -> part[b]; the last block of the system sums the parts */
  sdk_sb_puts(
      b,
      "  const int sdk_lane = sdk_tid & 31, sdk_warp = sdk_tid >> 5;\n"
      "#pragma unroll\n"
      "  for (int sdk_k = 0; sdk_k < SDK_NRED; sdk_k++) {\n"
      "    float sdk_v = sdk_acc[sdk_k];\n"
      "#pragma unroll\n"
      "    for (int sdk_o = 16; sdk_o > 0; sdk_o >>= 1) sdk_v += __shfl_down_sync(0xffffffffu, "
      "sdk_v, sdk_o);\n"
      "    if (sdk_lane == 0) sdk_sred[sdk_warp][sdk_k] = (double)sdk_v;\n"
      "  }\n"
      "  __syncthreads();\n"
      "  if (sdk_tid == 0) {\n"
      "    for (int sdk_k = 0; sdk_k < SDK_NRED; sdk_k++) {\n"
      "      double sdk_a = 0.0;\n"
      "      for (int sdk_w = 0; sdk_w < SDK_STPB / 32; sdk_w++) sdk_a += sdk_sred[sdk_w][sdk_k];\n"
      "      sdk_part[(sdk_i64)blockIdx.x * SDK_NRED + sdk_k] = sdk_a;\n"
      "    }\n"
      "    /* release: part[] before the count; acquire: the others' part[] after it */\n"
      "    sdk_slast = sdk_atom_inc_acqrel(&sdk_cnt[sdk_s]) == (unsigned)(sdk_nblk - 1);\n"
      "  }\n"
      "  __syncthreads();\n"
      "  if (!sdk_slast) return;\n"
      "  /* the system's sums, in a fixed order: four running sums per thread, the\n"
      "   * warp's threads by shuffles, the warps in order; critical path of the step:\n"
      "   * one barrier */\n"
      "  double sdk_tot[SDK_NRED];\n"
      "#pragma unroll\n"
      "  for (int sdk_k = 0; sdk_k < SDK_NRED; sdk_k++) {\n"
      "    const double *sdk_pk = sdk_part + sdk_s * sdk_nblk * SDK_NRED + sdk_k;\n"
      "    double sdk_a = 0.0, sdk_a1 = 0.0, sdk_a2 = 0.0, sdk_a3 = 0.0;\n"
      "    int sdk_q = sdk_tid;\n"
      "    for (; sdk_q + 3 * SDK_STPB < sdk_nblk; sdk_q += 4 * SDK_STPB) {\n"
      "      sdk_a += __ldcg(sdk_pk + (sdk_i64)sdk_q * SDK_NRED);\n"
      "      sdk_a1 += __ldcg(sdk_pk + (sdk_i64)(sdk_q + SDK_STPB) * SDK_NRED);\n"
      "      sdk_a2 += __ldcg(sdk_pk + (sdk_i64)(sdk_q + 2 * SDK_STPB) * SDK_NRED);\n"
      "      sdk_a3 += __ldcg(sdk_pk + (sdk_i64)(sdk_q + 3 * SDK_STPB) * SDK_NRED);\n"
      "    }\n"
      "    for (; sdk_q < sdk_nblk; sdk_q += SDK_STPB) sdk_a += __ldcg(sdk_pk + (sdk_i64)sdk_q * "
      "SDK_NRED);\n"
      "    double sdk_v = (sdk_a + sdk_a1) + (sdk_a2 + sdk_a3);\n"
      "#pragma unroll\n"
      "    for (int sdk_o = 16; sdk_o > 0; sdk_o >>= 1) sdk_v += __shfl_down_sync(0xffffffffu, "
      "sdk_v, sdk_o);\n"
      "    if (sdk_lane == 0) sdk_sred[sdk_warp][sdk_k] = sdk_v;\n"
      "  }\n"
      "  __syncthreads();\n"
      "  if (sdk_tid == 0) {\n"
      "    for (int sdk_k = 0; sdk_k < SDK_NRED; sdk_k++) {\n"
      "      double sdk_a = 0.0;\n"
      "      for (int sdk_w = 0; sdk_w < SDK_STPB / 32; sdk_w++) sdk_a += sdk_sred[sdk_w][sdk_k];\n"
      "      sdk_tot[sdk_k] = sdk_a;\n"
      "      sdk_sums_out[sdk_s * SDK_NRED + sdk_k] = sdk_a;\n"
      "    }\n"
      "    sdk_cnt[sdk_s] = 0u;\n"
      "  }\n");
  if (red.ocos >= 0) {
    sdk_sb_printf(
        b,
        "  /* order parameter: Z of the system, then of its grid point */\n"
        "  if (!sdk_obs_row) return;\n"
        "  if (sdk_tid == 0) {\n"
        "    const double sdk_zr = sdk_tot[%d] * sdk_invN, sdk_zi = sdk_tot[%d] * sdk_invN, sdk_z2 "
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
        red.ocos, red.osin);
  } else {
    sdk_sb_puts(b, "  (void)sdk_zsys; (void)sdk_gcnt; (void)sdk_obs_row;\n");
  }
  sdk_sb_puts(b, "}\n");
  sdk_cg_red_free(&red);
}
