/* CUDA driver for systems of interacting particles (see sys.c).
 *
 * Work and reduction contract.  A system of N particles is cut into groups
 * of SDK_GSZ = cpb * SDK_CH consecutive particles (cpb and SDK_CH are
 * functions of N alone; the last group may be partial).  Thread t of the 256
 * threads that process a group owns, in each chunk cc of SDK_CH particles,
 * the SDK_QI quads (four consecutive particles) starting at local indices
 * cc * SDK_CH + it * 1024 + 4 t (mean-field models; one particle per thread,
 * SDK_CH = 256, for pair models).  The sums of the reduced expressions are
 *   thread:  its particles in the order (cc, it, lane), in `real`;
 *   warp:    shuffle-down tree of the 32 threads, in `real`;
 *   group:   the 8 warps in order, in double  -> part[group];
 *   system:  thread q of 256 sums part[q + 256 m] (four running sums,
 *            m = 0,4,8.. / 1,5,9.. / ..), a shuffle-down tree, the 8 warps
 *            in order, all in double.
 * Every kernel below follows it, so they all give the same bits whatever the
 * device, the launch shape or the scheduling:
 *
 *   sdk_sys_step   one launch per Euler step (the paper's PROG3 without its
 *                  two host round trips per step, and PROG2's UpdateRHS fused
 *                  with the step): block = group; the last block of a system
 *                  (acquire-release counter) forms the system's sums and the
 *                  order parameter.  mode 0 only sums x_n (priming).
 *   sdk_sys_run    mean-field models: one cooperative launch for many steps;
 *                  each block owns a fixed run of groups; as many of their
 *                  chunks as fit stay in shared memory for the whole launch
 *                  (all of them up to a few 2^22 particles on an H100), the
 *                  others stream through device memory; a grid barrier
 *                  separates the steps, after which every block forms the sums
 *                  of its systems itself (no second barrier).
 *
 * Gaussians follow the system stream of rng/philox.h (domain 3): one
 * Philox4x32-10 block per quad and step gives its four particles their
 * numbers, by the Box-Muller pairs (o0,o1) -> lanes 0,1 and (o2,o3) -> lanes
 * 2,3.  The Philox chains of a thread's quads run in lockstep (one key
 * schedule).  Per-particle parameters come from Philox domain 2 (recomputed
 * every step rather than stored: no extra memory traffic). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen_internal.h"

#define STPB SDK_CUDA_SYS_TPB

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

/* seg with every keys[k] replaced by vals[k], verbatim */
static void emit_seg(sdk_strbuf *b, const char *seg, int nkeys, const char *const *keys,
                     const char *const *vals) {
  for (const char *p = seg ? seg : ""; *p;) {
    int hit = 0;
    for (int k = 0; k < nkeys && !hit; k++) {
      size_t n = strlen(keys[k]);
      if (!strncmp(p, keys[k], n)) {
        sdk_sb_puts(b, vals[k]);
        p += n;
        hit = 1;
      }
    }
    if (!hit) sdk_sb_putn(b, p++, 1);
  }
}

/* Helpers of every system module: the block's sum of a group, the system's
 * sum of its groups, the grid barrier. */
static const char SYS_HELPERS[] =
    "static __device__ __forceinline__ unsigned sdk_atom_inc_acqrel(unsigned *sdk_p) {\n"
    "  unsigned sdk_old;\n"
    "  asm volatile(\"atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;\" : \"=r\"(sdk_old) : "
    "\"l\"(sdk_p) : \"memory\");\n"
    "  return sdk_old;\n"
    "}\n"
    "/* thread 0: out[k] = the warps' sums sred[w][k] in the order w = 0..7 */\n"
    "static __device__ __forceinline__ void sdk_warps_in_order(double (*sdk_sred)[SDK_NRED], "
    "double *sdk_out) {\n"
    "  if (threadIdx.x == 0)\n"
    "    for (int sdk_k = 0; sdk_k < SDK_NRED; sdk_k++) {\n"
    "      double sdk_a = 0.0;\n"
    "      for (int sdk_w = 0; sdk_w < SDK_STPB / 32; sdk_w++) sdk_a += sdk_sred[sdk_w][sdk_k];\n"
    "      sdk_out[sdk_k] = sdk_a;\n"
    "    }\n"
    "}\n"
    "/* group: the threads' sums (in real), warps by shuffles, the 8 warps in order in\n"
    " * double -> part_g[k] (written by thread 0).  sred alternates between two halves\n"
    " * from one group to the next, so one barrier per group suffices: a half is\n"
    " * written again only after the next group's barrier, which thread 0 reaches\n"
    " * after reading it. */\n"
    "static __device__ __forceinline__ void sdk_sys_block_sum(const real *sdk_acc,\n"
    "                                                         double (*sdk_sred)[SDK_NRED],\n"
    "                                                         double *sdk_part_g, int sdk_half) "
    "{\n"
    "  sdk_sred += sdk_half * (SDK_STPB / 32);\n"
    "  const int sdk_tid = threadIdx.x, sdk_lane = sdk_tid & 31, sdk_warp = sdk_tid >> 5;\n"
    "#pragma unroll\n"
    "  for (int sdk_k = 0; sdk_k < SDK_NRED; sdk_k++) {\n"
    "    real sdk_v = sdk_acc[sdk_k];\n"
    "#pragma unroll\n"
    "    for (int sdk_o = 16; sdk_o > 0; sdk_o >>= 1) sdk_v += __shfl_down_sync(0xffffffffu, "
    "sdk_v, sdk_o);\n"
    "    if (sdk_lane == 0) sdk_sred[sdk_warp][sdk_k] = (double)sdk_v;\n"
    "  }\n"
    "  __syncthreads();\n"
    "  sdk_warps_in_order(sdk_sred, sdk_part_g);\n"
    "}\n"
    "/* system: its nblk group sums (part_s[c * SDK_NRED + k], written by other\n"
    " * blocks: read through L2) in the fixed order of the contract -> tot[k]\n"
    " * (shared; every thread of the block calls this) */\n"
    "static __device__ __forceinline__ void sdk_sys_total(const double *sdk_part_s, int "
    "sdk_nblk,\n"
    "                                                     double (*sdk_sred)[SDK_NRED], double "
    "*sdk_tot) {\n"
    "  const int sdk_tid = threadIdx.x, sdk_lane = sdk_tid & 31, sdk_warp = sdk_tid >> 5;\n"
    "#pragma unroll\n"
    "  for (int sdk_k = 0; sdk_k < SDK_NRED; sdk_k++) {\n"
    "    const double *sdk_pk = sdk_part_s + sdk_k;\n"
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
    "  sdk_warps_in_order(sdk_sred, sdk_tot);\n"
    "  __syncthreads();\n"
    "}\n"
    "/* The persistent kernel's step barrier: every block arrives once per step\n"
    " * (release: its group sums, written by the same thread, before the count) and\n"
    " * waits for all B arrivals of the step (acquire: the others' sums after it).\n"
    " * The count only grows during a launch: no reset, no generation. */\n"
    "static __device__ __forceinline__ void sdk_grid_sync(unsigned *sdk_bar, unsigned "
    "sdk_target) {\n"
    "  __syncthreads();\n"
    "  if (threadIdx.x == 0) {\n"
    "    asm volatile(\"red.release.gpu.global.add.u32 [%0], 1;\" : : \"l\"(sdk_bar) : "
    "\"memory\");\n"
    "    unsigned sdk_v;\n"
    "    do\n"
    "      asm volatile(\"ld.acquire.gpu.global.u32 %0, [%1];\" : \"=r\"(sdk_v) : "
    "\"l\"(sdk_bar) : \"memory\");\n"
    "    while ((int)(sdk_v - sdk_target) < 0);\n"
    "  }\n"
    "  __syncthreads();\n"
    "}\n";

/* Four consecutive values of a state row: vector accesses when N % 4 == 0. */
static const char SYS_VEC[] =
    "#if SDK_SINGLE\n"
    "#define SDK_LD4(p, a, b, c, d) do { const float4 sdk_v4 = *(const float4 *)(p); "
    "a = sdk_v4.x; b = sdk_v4.y; c = sdk_v4.z; d = sdk_v4.w; } while (0)\n"
    "#define SDK_ST4(p, a, b, c, d) (*(float4 *)(p) = make_float4(a, b, c, d))\n"
    "#else\n"
    "#define SDK_LD4(p, a, b, c, d) do { const double2 sdk_v0 = *(const double2 *)(p), "
    "sdk_v1 = *((const double2 *)(p) + 1); a = sdk_v0.x; b = sdk_v0.y; c = sdk_v1.x; d = "
    "sdk_v1.y; } while (0)\n"
    "#define SDK_ST4(p, a, b, c, d) do { *(double2 *)(p) = make_double2(a, b); "
    "*((double2 *)(p) + 1) = make_double2(c, d); } while (0)\n"
    "#endif\n";

/* The Philox rounds of the thread's quads in lockstep; ph[it] holds the
 * counter of quad it on entry and the block's four words on exit. */
static void emit_philox_lockstep(sdk_strbuf *b, const char *nq, const char *ind) {
  sdk_sb_printf(
      b,
      "%s{\n"
      "%s  sdk_u32 sdk_k0 = (sdk_u32)sdk_seed, sdk_k1 = (sdk_u32)(sdk_seed >> 32);\n"
      "#pragma unroll\n"
      "%s  for (int sdk_r = 0; sdk_r < 10; sdk_r++) {\n"
      "#pragma unroll\n"
      "%s    for (int sdk_it = 0; sdk_it < %s; sdk_it++) sdk_philox_round_(sdk_ph[sdk_it], "
      "sdk_k0, sdk_k1);\n"
      "%s    sdk_k0 += 0x9E3779B9u;\n"
      "%s    sdk_k1 += 0xBB67AE85u;\n"
      "%s  }\n"
      "%s}\n",
      ind, ind, ind, ind, nq, ind, ind, ind, ind);
}

/* The order-parameter tail of sdk_sys_step's last block (tot: the system's
 * sums of step n + 1): Z of the system, then of its grid point. */
static void emit_order_tail(sdk_strbuf *b, const sdk_cg_red *red) {
  if (red->ocos < 0) {
    sdk_sb_puts(b, "  (void)sdk_zsys; (void)sdk_gcnt; (void)sdk_obs_row; (void)sdk_sz;\n");
    return;
  }
  sdk_sb_printf(
      b,
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

/* The kernel head shared by both model kinds, and the tail after the group:
 * the last block of the system forms its sums (and the order parameter). */
static const char STEP_HEAD[] =
    "\nextern \"C\" __global__ void __launch_bounds__(SDK_STPB, SDK_MINB)\n"
    "sdk_sys_step(const real *sdk_st_in, real *sdk_st_out, sdk_i64 sdk_npad, const real "
    "*__restrict__ sdk_sv,\n"
    "             sdk_i64 sdk_ppg, sdk_i64 sdk_N, sdk_i64 sdk_spg, int sdk_nchunk, int sdk_nblk, "
    "int sdk_cpb, sdk_i64 sdk_n,\n"
    "             sdk_u64 sdk_seed, int sdk_mode, const double *__restrict__ sdk_sums_in, double "
    "*sdk_sums_out,\n"
    "             double *sdk_part, unsigned *sdk_cnt, double *sdk_zsys, unsigned *sdk_gcnt, "
    "double *sdk_obs_row) {\n"
    "  __shared__ double sdk_sred[2 * SDK_STPB / 32][SDK_NRED];\n"
    "  __shared__ double sdk_sz[SDK_STPB / 32][4];\n"
    "  __shared__ double sdk_stot[SDK_NRED];\n"
    "  __shared__ int sdk_slast;\n"
    "  const int sdk_tid = threadIdx.x;\n"
    "  const sdk_i64 sdk_s = (sdk_i64)blockIdx.x / sdk_nblk;\n"
    "  const int sdk_c = (int)((sdk_i64)blockIdx.x - sdk_s * sdk_nblk); /* group of the system */\n"
    "  const sdk_i64 sdk_g = sdk_s / sdk_spg;\n"
    "  const double sdk_invN = 1.0 / (double)sdk_N;\n"
    "  (void)sdk_ppg; (void)sdk_nchunk; (void)sdk_invN; (void)sdk_g; (void)sdk_st_out;\n";

static const char STEP_TAIL[] =
    "  if (sdk_tid == 0)\n"
    "    /* release: part[] before the count; acquire: the others' part[] after it */\n"
    "    sdk_slast = sdk_atom_inc_acqrel(&sdk_cnt[sdk_s]) == (unsigned)(sdk_nblk - 1);\n"
    "  __syncthreads();\n"
    "  if (!sdk_slast) return;\n"
    "  sdk_sys_total(sdk_part + sdk_s * sdk_nblk * SDK_NRED, sdk_nblk, sdk_sred, sdk_stot);\n"
    "  if (sdk_tid == 0) {\n"
    "    for (int sdk_k = 0; sdk_k < SDK_NRED; sdk_k++) sdk_sums_out[sdk_s * SDK_NRED + sdk_k] = "
    "sdk_stot[sdk_k];\n"
    "    sdk_cnt[sdk_s] = 0u;\n"
    "  }\n";

/* Bind the model's variable names to sdk_x<v>, and t to step n (next = 0)
 * or, in mode 1, to step n + 1 (next = 1). */
static void bind_state(sdk_strbuf *b, const sdk_codegen_opts *o, int next, const char *ind) {
  const sdk_model *m = o->model;
  for (int v = 0; v < m->nvars; v++) {
    sdk_sb_printf(b, "%sconst real ", ind);
    sdk_cg_name(b, m->vars[v]);
    sdk_sb_printf(b, " = sdk_x%d; (void)", v);
    sdk_cg_name(b, m->vars[v]);
    sdk_sb_puts(b, ";\n");
  }
  if (next)
    sdk_cg_bind_time(b, o, "sdk_mode ? sdk_t01 : sdk_t0", "sdk_mode ? sdk_tp01 : sdk_tp0", ind);
  else
    sdk_cg_bind_time(b, o, "sdk_t0", "sdk_tp0", ind);
}

/* ---------------- mean-field models ---------------- */

static void emit_meanfield(sdk_strbuf *b, const sdk_codegen_opts *o, const sdk_cg_red *red) {
  const sdk_model *m = o->model;
  int nv = m->nvars, nn = m->nnoise, nred = red->n;
  int vec = o->particles % 4 == 0;

  /* the group: x_n -> x_{n+1} of its particles and the block's sums of the
   * reduced expressions of x_{n+1} (mode 0: of x_n, no step) */
  sdk_sb_puts(
      b,
      "\n/* One group (s, c): particles c * gsz .. + glen - 1 of system s, whose variable v\n"
      " * lives at xg[v * npad + i] (device memory) or, for the chunks resident in shared\n"
      " * memory, in xs: chunk j0 + cc of the block's is in slot slot_of[j0 + cc] (-1: not\n"
      " * resident; no table: none is), variable v at xs[v * vss + slot * SDK_CH + i].\n"
      " * tot: the system's sums of step n. */\n"
      "static __device__ __forceinline__ void sdk_sys_group(real *sdk_xg, sdk_i64 sdk_npad, real "
      "*sdk_xs, sdk_i64 sdk_vss, int sdk_j0,\n"
      "    const short *sdk_slot_of, int sdk_glen, sdk_i64 sdk_s, sdk_i64 sdk_c,\n"
      "    sdk_i64 sdk_N, sdk_i64 sdk_spg, int sdk_gsz, const real *__restrict__ sdk_sv, "
      "sdk_i64 sdk_n, sdk_u64 sdk_seed,\n"
      "    int sdk_mode, const double *sdk_tot, double *sdk_part_g, double "
      "(*sdk_sred)[SDK_NRED], int sdk_half) {\n"
      "  const int sdk_tid = threadIdx.x;\n"
      "  const sdk_i64 sdk_g = sdk_s / sdk_spg;\n"
      "  (void)sdk_sv; (void)sdk_g; (void)sdk_tot; (void)sdk_seed;\n");
  sdk_cg_params(b, o, "sdk_sv[sdk_g * SDK_NSV + %d]", "  ");
  sdk_sb_puts(b, "  (void)sdk_sqdt;\n");
  /* times of steps n and n + 1 (suffix 1) */
  sdk_cg_step_time(b, o, "sdk_n", "  ", "");
  sdk_cg_step_time(b, o, "sdk_n + 1", "  ", "1");
  sdk_sb_puts(b, "  const double sdk_invN = 1.0 / (double)sdk_N;\n  (void)sdk_invN;\n");
  bind_coupling(b, m, 0, "sdk_mode ? (real)(sdk_tot[%d] * sdk_invN) : (real)0", "  ");
  sdk_sb_puts(
      b, "  real sdk_acc[SDK_NRED];\n"
         "#pragma unroll\n"
         "  for (int sdk_k = 0; sdk_k < SDK_NRED; sdk_k++) sdk_acc[sdk_k] = (real)0;\n"
         "  const sdk_i64 sdk_gi0 = sdk_c * (sdk_i64)sdk_gsz; /* the group's first particle */\n"
         "  /* quad index (stream domain 3) of the group's first particle */\n"
         "  const sdk_u64 sdk_q0 = (sdk_u64)sdk_s * (sdk_u64)((sdk_N + 3) >> 2) + "
         "(sdk_u64)(sdk_gi0 >> 2);\n"
         "  (void)sdk_q0;\n"
         "  for (int sdk_cc = 0; sdk_cc * SDK_CH < sdk_glen; sdk_cc++) {\n"
         "    const int sdk_i0 = sdk_cc * SDK_CH + 4 * sdk_tid; /* my quad 0 of this chunk */\n");

  /* The chunk, emitted four times: whole (no bounds checks; vector accesses
   * when N % 4 == 0) and partial (@ACT@: is local particle li one), for x in
   * shared and in device memory. */
  sdk_strbuf sg;
  sdk_sb_init(&sg);
  sdk_sb_printf(&sg,
                "    {\n    real sdk_xv[SDK_QI][4][%d];\n#pragma unroll\n"
                "    for (int sdk_it = 0; sdk_it < SDK_QI; sdk_it++) {\n"
                "      const int sdk_li = sdk_i0 + sdk_it * 1024;\n",
                nv);
  sdk_sb_puts(&sg, "@LOADS@");
  sdk_sb_puts(&sg, "    }\n");
  /* (the loads are in flight while the Gaussians are computed) */
  if (nn > 0) {
    sdk_sb_printf(&sg, "    real sdk_zv[SDK_QI][4][%d];\n    if (sdk_mode) {\n", nn);
    for (int j = 0; j < nn; j++) {
      sdk_sb_printf(
          &sg,
          "      {\n"
          "        const sdk_u64 sdk_k = (sdk_u64)sdk_n * SDK_NN + %d;\n"
          "        sdk_u32 sdk_ph[SDK_QI][4];\n"
          "#pragma unroll\n"
          "        for (int sdk_it = 0; sdk_it < SDK_QI; sdk_it++) {\n"
          "          const sdk_u64 sdk_q = sdk_q0 + (sdk_u64)((sdk_i0 + sdk_it * 1024) >> "
          "2);\n"
          "          sdk_ph[sdk_it][0] = (sdk_u32)sdk_k;\n"
          "          sdk_ph[sdk_it][1] = ((sdk_u32)(sdk_k >> 32) & 0x7fffffffu) | "
          "0xe0000000u; /* domain 3 */\n"
          "          sdk_ph[sdk_it][2] = (sdk_u32)sdk_q;\n"
          "          sdk_ph[sdk_it][3] = (sdk_u32)(sdk_q >> 32);\n"
          "        }\n",
          j);
      emit_philox_lockstep(&sg, "SDK_QI", "        ");
      sdk_sb_printf(&sg,
                    "#pragma unroll\n"
                    "        for (int sdk_it = 0; sdk_it < SDK_QI; sdk_it++) {\n"
                    "          real sdk_g2[2];\n"
                    "          sdk_boxmuller2(sdk_ph[sdk_it][0], sdk_ph[sdk_it][1], sdk_g2);\n"
                    "          sdk_zv[sdk_it][0][%d] = sdk_g2[0]; sdk_zv[sdk_it][1][%d] = "
                    "sdk_g2[1];\n"
                    "          sdk_boxmuller2(sdk_ph[sdk_it][2], sdk_ph[sdk_it][3], sdk_g2);\n"
                    "          sdk_zv[sdk_it][2][%d] = sdk_g2[0]; sdk_zv[sdk_it][3][%d] = "
                    "sdk_g2[1];\n"
                    "        }\n"
                    "      }\n",
                    j, j, j, j);
    }
    sdk_sb_puts(&sg, "    }\n");
  }
  sdk_sb_puts(&sg, "#pragma unroll\n"
                   "    for (int sdk_it = 0; sdk_it < SDK_QI; sdk_it++) {\n"
                   "#pragma unroll\n"
                   "      for (int sdk_l = 0; sdk_l < 4; sdk_l++) {\n"
                   "        const int sdk_li = sdk_i0 + sdk_it * 1024 + sdk_l;\n"
                   "        const int sdk_act = @ACT@;\n"
                   "        const sdk_i64 sdk_gp = sdk_s * sdk_N + sdk_gi0 + sdk_li; /* global "
                   "particle index */\n"
                   "        (void)sdk_act; (void)sdk_gp;\n");
  for (int v = 0; v < nv; v++)
    sdk_sb_printf(&sg, "        real sdk_x%d = sdk_xv[sdk_it][sdk_l][%d];\n", v, v);
  for (int k = 0; k < m->npart; k++) {
    if (sdk_cg_part_const(o, k)) continue;
    char dst[64];
    snprintf(dst, sizeof dst, "sdk_pp%d", k);
    sdk_sb_printf(&sg, "        real sdk_pp%d;\n", k);
    sdk_cg_part_draw(&sg, o, k, "sdk_gp", dst, "        ");
  }
  sdk_cg_part_bind(&sg, o, "sdk_pp%d", 0, "        ");
  sdk_sb_puts(&sg, "        if (sdk_mode) {\n");
  for (int j = 0; j < nn; j++)
    sdk_sb_printf(&sg, "          const real sdk_z%d = sdk_zv[sdk_it][sdk_l][%d];\n", j, j);
  sdk_cg_step(&sg, o, "          ");
  for (int v = 0; v < nv; v++)
    sdk_sb_printf(&sg, "          sdk_xv[sdk_it][sdk_l][%d] = sdk_x%d;\n", v, v);
  sdk_sb_puts(&sg, "        }\n");
  if (nred > 0) {
    sdk_sb_puts(&sg, "        if (sdk_act) {\n");
    bind_state(&sg, o, 1, "          ");
    for (int k = 0; k < nred; k++) {
      sdk_sb_printf(&sg, "          sdk_acc[%d] += (real)", k);
      sdk_cg_emit_expr(&sg, o, red->e[k], red->line[k]);
      sdk_sb_puts(&sg, ";\n");
    }
    sdk_sb_puts(&sg, "        }\n");
  }
  sdk_sb_puts(&sg, "      }\n    }\n    if (sdk_mode) {\n#pragma unroll\n"
                   "      for (int sdk_it = 0; sdk_it < SDK_QI; sdk_it++) {\n"
                   "        const int sdk_li = sdk_i0 + sdk_it * 1024;\n");
  sdk_sb_puts(&sg, "@STORES@");
  sdk_sb_puts(&sg, "      }\n    }\n    }\n");

  /* loads and stores of the whole chunk and of the partial one */
  sdk_strbuf lw, sw, lp, sp;
  sdk_sb_init(&lw), sdk_sb_init(&sw), sdk_sb_init(&lp), sdk_sb_init(&sp);
  for (int v = 0; v < nv; v++) {
    if (vec) {
      sdk_sb_printf(&lw,
                    "      SDK_LD4(sdk_xb + %d * sdk_vs + sdk_li + sdk_off, sdk_xv[sdk_it][0][%d], "
                    "sdk_xv[sdk_it][1][%d], sdk_xv[sdk_it][2][%d], sdk_xv[sdk_it][3][%d]);\n",
                    v, v, v, v, v);
      sdk_sb_printf(
          &sw,
          "        SDK_ST4(sdk_xb + %d * sdk_vs + sdk_li + sdk_off, sdk_xv[sdk_it][0][%d], "
          "sdk_xv[sdk_it][1][%d], sdk_xv[sdk_it][2][%d], sdk_xv[sdk_it][3][%d]);\n",
          v, v, v, v, v);
    } else {
      sdk_sb_printf(&lw,
                    "#pragma unroll\n      for (int sdk_l = 0; sdk_l < 4; sdk_l++) "
                    "sdk_xv[sdk_it][sdk_l][%d] = sdk_xb[%d * sdk_vs + sdk_li + sdk_off + sdk_l];\n",
                    v, v);
      sdk_sb_printf(&sw,
                    "#pragma unroll\n        for (int sdk_l = 0; sdk_l < 4; sdk_l++) "
                    "sdk_xb[%d * sdk_vs + sdk_li + sdk_off + sdk_l] = sdk_xv[sdk_it][sdk_l][%d];\n",
                    v, v);
    }
    sdk_sb_printf(&lp,
                  "#pragma unroll\n      for (int sdk_l = 0; sdk_l < 4; sdk_l++) "
                  "sdk_xv[sdk_it][sdk_l][%d] = sdk_li + sdk_l < sdk_glen ? sdk_xb[%d * sdk_vs + "
                  "sdk_li + sdk_off + sdk_l] : (real)0;\n",
                  v, v);
    sdk_sb_printf(&sp,
                  "#pragma unroll\n        for (int sdk_l = 0; sdk_l < 4; sdk_l++) if (sdk_li + "
                  "sdk_l < sdk_glen) sdk_xb[%d * sdk_vs + sdk_li + sdk_off + sdk_l] = "
                  "sdk_xv[sdk_it][sdk_l][%d];\n",
                  v, v);
  }
  /* whole chunk (w = 0) or partial (w = 1), x in shared memory (side 0) or DRAM */
  static const char *const keys[] = {"@LOADS@", "@STORES@", "@ACT@"};
  static const char *const act[2] = {"(1)", "(sdk_li < sdk_glen)"};
  sdk_strbuf *ld[2] = {&lw, &lp}, *st[2] = {&sw, &sp};
  sdk_sb_puts(b, "    const int sdk_slot = sdk_slot_of ? sdk_slot_of[sdk_j0 + sdk_cc] : -1;\n"
                 "    if (sdk_slot >= 0) {\n"
                 "      real *const sdk_xb = sdk_xs; /* resident */\n"
                 "      const sdk_i64 sdk_vs = sdk_vss;\n"
                 "      const int sdk_off = (sdk_slot - sdk_cc) * SDK_CH;\n");
  for (int side = 0; side < 2; side++) {
    if (side == 1)
      sdk_sb_puts(b, "    } else {\n"
                     "      real *const sdk_xb = sdk_xg; /* in device memory */\n"
                     "      const sdk_i64 sdk_vs = sdk_npad;\n"
                     "      const int sdk_off = 0;\n");
    sdk_sb_puts(b, "    if (sdk_glen - sdk_cc * SDK_CH >= SDK_CH) {\n");
    for (int w = 0; w < 2; w++) {
      if (w == 1) sdk_sb_puts(b, "    } else {\n");
      const char *vals[] = {ld[w]->s ? ld[w]->s : "", st[w]->s ? st[w]->s : "", act[w]};
      emit_seg(b, sg.s, 3, keys, vals);
    }
    sdk_sb_puts(b, "    }\n");
  }
  sdk_sb_puts(b, "    }\n  }\n  sdk_sys_block_sum(sdk_acc, sdk_sred, sdk_part_g, sdk_half);\n}\n");
  sdk_sb_free(&sg), sdk_sb_free(&lw), sdk_sb_free(&sw), sdk_sb_free(&lp), sdk_sb_free(&sp);

  /* one launch per step */
  sdk_sb_puts(b, STEP_HEAD);
  sdk_sb_puts(
      b, "  const sdk_i64 sdk_gi0 = (sdk_i64)sdk_c * sdk_cpb * SDK_CH;\n"
         "  const int sdk_glen = (int)(sdk_N - sdk_gi0 < sdk_cpb * SDK_CH ? sdk_N - sdk_gi0 "
         ": sdk_cpb * SDK_CH);\n"
         "  sdk_sys_group((real *)sdk_st_in + sdk_s * sdk_N + sdk_gi0, sdk_npad, (real *)0, 0, "
         "0, (const short *)0, sdk_glen, sdk_s, sdk_c, sdk_N,\n"
         "                sdk_spg, sdk_cpb * SDK_CH,\n"
         "                sdk_sv, sdk_n, sdk_seed, sdk_mode, sdk_sums_in + sdk_s * "
         "SDK_NRED, sdk_part + (sdk_i64)blockIdx.x * SDK_NRED, sdk_sred, 0);\n");
  sdk_sb_puts(b, STEP_TAIL);
  emit_order_tail(b, red);
  sdk_sb_puts(b, "}\n");

  /* the persistent kernel */
  sdk_sb_puts(
      b,
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
      "sdk_ts[sdk_k];\n");
  if (red->ocos >= 0)
    sdk_sb_printf(
        b,
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
  sdk_sb_puts(
      b, "          }\n"
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
         "}\n");
}

/* ---------------- pair models (all-pairs, tiled: the paper's PROG2) ---------------- */

static void emit_pairs(sdk_strbuf *b, const sdk_codegen_opts *o, const sdk_cg_red *red) {
  const sdk_model *m = o->model;
  int nv = m->nvars, nn = m->nnoise, npair = m->npair, nred = red->n;
  sdk_sb_puts(b, STEP_HEAD);
  /* (16-byte aligned: x_j is read four at a time, see below) */
  sdk_sb_printf(b, "  __shared__ __align__(16) real sdk_sx[%d][SDK_STPB];\n", nv);
  int npj = 0;
  for (int k = 0; k < m->npart; k++)
    if (sdk_cg_pair_uses(m, SDK_OTHER_PARTJ, k) && !sdk_cg_part_const(o, k)) npj++;
  if (npj > 0) sdk_sb_printf(b, "  __shared__ real sdk_spj[%d][SDK_STPB];\n", m->npart);
  sdk_cg_params(b, o, "sdk_sv[sdk_g * SDK_NSV + %d]", "  ");
  sdk_sb_puts(b, "  (void)sdk_sqdt;\n");
  sdk_cg_step_time(b, o, "sdk_n", "  ", "");
  sdk_cg_step_time(b, o, "sdk_n + 1", "  ", "1");
  bind_coupling(b, m, 0,
                "sdk_mode ? (real)(sdk_sums_in[sdk_s * SDK_NRED + %d] * sdk_invN) : (real)0", "  ");
  sdk_sb_puts(b,
              "  real sdk_acc[SDK_NRED];\n"
              "#pragma unroll\n"
              "  for (int sdk_k = 0; sdk_k < SDK_NRED; sdk_k++) sdk_acc[sdk_k] = (real)0;\n"
              "  const sdk_i64 sdk_li = (sdk_i64)sdk_c * SDK_STPB + sdk_tid; /* in the system */\n"
              "  const int sdk_act = sdk_li < sdk_N;\n"
              "  const sdk_i64 sdk_gp = sdk_s * sdk_N + (sdk_act ? sdk_li : 0);\n");
  for (int v = 0; v < nv; v++)
    sdk_sb_printf(b, "  real sdk_x%d = sdk_st_in[%d * sdk_npad + sdk_gp];\n", v, v);
  if (nn > 0) {
    /* the particle's lane of its quad's Philox block (stream domain 3) */
    sdk_sb_printf(b, "  real sdk_zv[%d];\n  if (sdk_mode) {\n", nn);
    sdk_sb_puts(b, "    const sdk_u64 sdk_q = (sdk_u64)sdk_s * (sdk_u64)((sdk_N + 3) >> 2) + "
                   "(sdk_u64)(sdk_li >> 2);\n"
                   "    const int sdk_lane = (int)(sdk_li & 3);\n");
    for (int j = 0; j < nn; j++) {
      sdk_sb_printf(b,
                    "    {\n"
                    "      const sdk_u64 sdk_k = (sdk_u64)sdk_n * SDK_NN + %d;\n"
                    "      sdk_u32 sdk_ph[1][4] = {{(sdk_u32)sdk_k, ((sdk_u32)(sdk_k >> 32) & "
                    "0x7fffffffu) | 0xe0000000u,\n"
                    "                              (sdk_u32)sdk_q, (sdk_u32)(sdk_q >> 32)}};\n",
                    j);
      emit_philox_lockstep(b, "1", "      ");
      sdk_sb_printf(b,
                    "      real sdk_g2[2];\n"
                    "      sdk_boxmuller2(sdk_lane & 2 ? sdk_ph[0][2] : sdk_ph[0][0], sdk_lane & 2 "
                    "? sdk_ph[0][3] : sdk_ph[0][1], sdk_g2);\n"
                    "      sdk_zv[%d] = sdk_lane & 1 ? sdk_g2[1] : sdk_g2[0];\n"
                    "    }\n",
                    j);
    }
    sdk_sb_puts(b, "  }\n");
  }
  for (int k = 0; k < m->npart; k++) {
    if (sdk_cg_part_const(o, k)) continue;
    char dst[64];
    snprintf(dst, sizeof dst, "sdk_pp%d", k);
    sdk_sb_printf(b, "  real sdk_pp%d;\n", k);
    sdk_cg_part_draw(b, o, k, "sdk_gp", dst, "  ");
  }
  sdk_cg_part_bind(b, o, "sdk_pp%d", 0, "  ");

  /* F_i = (1/N) sum_j f(x_i, x_j): tiles of the system's x_n in shared memory */
  sdk_sb_printf(b, "  double sdk_F[%d];\n", npair);
  for (int k = 0; k < npair; k++)
    sdk_sb_printf(b, "  sdk_F[%d] = 0.0;\n", k);
  sdk_sb_puts(b, "  if (sdk_mode) {\n"
                 "    const int sdk_ntile = (int)((sdk_N + SDK_STPB - 1) / SDK_STPB);\n"
                 "    for (int sdk_tile = 0; sdk_tile < sdk_ntile; sdk_tile++) {\n"
                 "      const sdk_i64 sdk_lj = (sdk_i64)sdk_tile * SDK_STPB + sdk_tid;\n"
                 "      __syncthreads();\n"
                 "      if (sdk_lj < sdk_N) {\n"
                 "        const sdk_i64 sdk_q = sdk_s * sdk_N + sdk_lj;\n");
  for (int v = 0; v < nv; v++)
    sdk_sb_printf(b, "        sdk_sx[%d][sdk_tid] = sdk_st_in[%d * sdk_npad + sdk_q];\n", v, v);
  for (int k = 0; k < m->npart; k++) {
    if (!sdk_cg_pair_uses(m, SDK_OTHER_PARTJ, k) || sdk_cg_part_const(o, k)) continue;
    char dst[64];
    snprintf(dst, sizeof dst, "sdk_spj[%d][sdk_tid]", k);
    sdk_cg_part_draw(b, o, k, "sdk_q", dst, "        ");
  }
  sdk_sb_puts(b,
              "      }\n"
              "      __syncthreads();\n"
              "      const int sdk_cntj = (int)(sdk_N - (sdk_i64)sdk_tile * SDK_STPB < SDK_STPB ? "
              "sdk_N - (sdk_i64)sdk_tile * SDK_STPB : SDK_STPB);\n");
  for (int k = 0; k < npair; k++)
    sdk_sb_printf(b, "      real sdk_a%d = (real)0;\n", k);
  bind_state(b, o, 0, "      ");
  for (int pass = 0; pass < 2; pass++) {
    /* a full tile in groups of 8 pairs (unrolled), then a partial one */
    if (pass == 0)
      sdk_sb_puts(b, "      if (sdk_cntj == SDK_STPB) {\n#pragma unroll 1\n"
                     "        for (int sdk_j8 = 0; sdk_j8 < SDK_STPB; sdk_j8 += 8) {\n");
    else
      sdk_sb_puts(b,
                  "      } else {\n        for (int sdk_j8 = 0; sdk_j8 < sdk_cntj; sdk_j8++) {\n");
    int nu = pass == 0 ? 8 : 1;
    /* whole tiles: the eight x_j of a group by two 16-byte loads (shared memory
     * and the special-function unit share one issue queue: four scalar loads
     * per vector load measured 2% slower, and slower than the paper's PROG2) */
    if (pass == 0)
      for (int v = 0; v < nv; v++)
        sdk_sb_printf(
            b,
            "          real sdk_xq%d[8];\n"
            "          SDK_LD4(&sdk_sx[%d][sdk_j8], sdk_xq%d[0], sdk_xq%d[1], sdk_xq%d[2], "
            "sdk_xq%d[3]);\n"
            "          SDK_LD4(&sdk_sx[%d][sdk_j8 + 4], sdk_xq%d[4], sdk_xq%d[5], "
            "sdk_xq%d[6], sdk_xq%d[7]);\n",
            v, v, v, v, v, v, v, v, v, v, v);
    for (int u = 0; u < nu; u++) {
      sdk_sb_printf(b, "          {\n            const int sdk_jj = sdk_j8 + %d;\n", u);
      for (int v = 0; v < nv; v++) {
        if (pass == 0)
          sdk_sb_printf(b, "            const real sdk_xj%d = sdk_xq%d[%d]; (void)sdk_xj%d;\n", v,
                        v, u, v);
        else
          sdk_sb_printf(b,
                        "            const real sdk_xj%d = sdk_sx[%d][sdk_jj]; (void)sdk_xj%d;\n",
                        v, v, v);
      }
      sdk_cg_part_bind(b, o, "sdk_spj[%d][sdk_jj]", 1, "            ");
      for (int k = 0; k < npair; k++) {
        sdk_sb_printf(b, "            sdk_a%d += ", k);
        sdk_cg_emit_expr(b, o, m->pair[k], m->pair_line[k]);
        sdk_sb_puts(b, ";\n");
      }
      sdk_sb_puts(b, "          }\n");
    }
    sdk_sb_puts(b, "        }\n");
  }
  sdk_sb_puts(b, "      }\n");
  for (int k = 0; k < npair; k++)
    sdk_sb_printf(b, "      sdk_F[%d] += (double)sdk_a%d;\n", k, k);
  sdk_sb_puts(b, "    }\n  }\n");
  bind_coupling(b, m, 1, "(real)(sdk_F[%d] * sdk_invN)", "  ");
  /* the Euler step, into the other state buffer */
  sdk_sb_puts(b, "  if (sdk_mode) {\n");
  for (int j = 0; j < nn; j++)
    sdk_sb_printf(b, "    const real sdk_z%d = sdk_zv[%d];\n", j, j);
  sdk_cg_step(b, o, "    ");
  for (int v = 0; v < nv; v++)
    sdk_sb_printf(b, "    if (sdk_act) sdk_st_out[%d * sdk_npad + sdk_gp] = sdk_x%d;\n", v, v);
  sdk_sb_puts(b, "  }\n");
  if (nred > 0) {
    sdk_sb_puts(b, "  if (sdk_act) {\n");
    bind_state(b, o, 1, "    ");
    for (int k = 0; k < nred; k++) {
      sdk_sb_printf(b, "    sdk_acc[%d] += (real)", k);
      sdk_cg_emit_expr(b, o, red->e[k], red->line[k]);
      sdk_sb_puts(b, ";\n");
    }
    sdk_sb_puts(b, "  }\n");
  }
  sdk_sb_puts(
      b, "  sdk_sys_block_sum(sdk_acc, sdk_sred, sdk_part + (sdk_i64)blockIdx.x * SDK_NRED, 0);\n");
  sdk_sb_puts(b, STEP_TAIL);
  emit_order_tail(b, red);
  sdk_sb_puts(b, "}\n");
}

/* a tuning knob in lo..hi (core/tuning.h), else the default */
static int knob(int v, int lo, int hi, int dflt) {
  return v >= lo && v <= hi ? v : dflt;
}

void sdk_cg_emit_sys_cuda(sdk_strbuf *b, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  int npair = m->npair;
  sdk_cg_red red;
  sdk_cg_red_build(&red, o);
  int nred = red.n;
  const sdk_tuning none = {0}, *tu = o->tuning ? o->tuning : &none;
  /* quads per thread and chunk (mean-field): several loads in flight per
   * thread for big systems; tuning: sys_qi (1..4) */
  int64_t N = o->particles;
  int qi = knob(tu->sys_qi, 1, 4, N >= (int64_t)1 << 20 && o->single ? 4 : 1);
  int ch = npair > 0 ? STPB : 1024 * qi;
  /* blocks per multiprocessor to keep resident (registers): measured on the
   * H100 (docs/BENCHMARKS.md); tuning: sys_minb (1..8) */
  int minb = knob(tu->sys_minb, 1, 8, npair > 0 ? 4 : qi >= 2 || !o->single ? 3 : 4);
  /* the persistent kernel holds more live values (its loops over steps and
   * groups): 2 blocks of 256 threads, up to 128 registers (no spills; faster
   * than 3 blocks of 85 on the H100 at 2^20..2^24 particles: docs/BENCHMARKS.md);
   * tuning: run_minb (1..8) */
  int minb_run = knob(tu->run_minb, 1, 8, 2);
  sdk_sb_printf(b,
                "\n/* ---- systems of interacting particles ---- */\n#define SDK_MINB %d\n"
                "#define SDK_MINB_RUN %d\n",
                minb, minb_run);
  sdk_sb_printf(b,
                "#define SDK_STPB %d\n#define SDK_QI %d\n#define SDK_CH %d\n#define SDK_NRED %d\n",
                STPB, qi, ch, nred > 0 ? nred : 1);
  /* what the backend needs: nred, npair, ocos, osin, particles per chunk, block
   * size, nmean, and whether the persistent kernels exist */
  sdk_sb_printf(
      b, "extern \"C\" __device__ const int sdk_sys_info[8] = {%d, %d, %d, %d, %d, %d, %d, %d};\n",
      nred, npair, red.ocos, red.osin, ch, STPB, m->nmean, npair == 0);
  sdk_sb_printf(b, "#define sdk_boxmuller2 sdk_boxmuller2_%c\n", o->single ? 'f' : 'd');
  sdk_sb_puts(b, SYS_HELPERS);
  sdk_sb_printf(b, "#define SDK_SINGLE %d\n", o->single);
  sdk_sb_puts(b, SYS_VEC);
  if (npair > 0)
    emit_pairs(b, o, &red);
  else
    emit_meanfield(b, o, &red);
  sdk_cg_red_free(&red);
}
