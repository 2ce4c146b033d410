/* CUDA driver for systems of interacting particles (see sys.h).
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
 *   sdk_sys_half   pair models with odd or even pair functions (pair_sym.c):
 *                  each unordered pair once, the tiles' float sums of the full
 *                  loop bit for bit (sys_cuda_pairs.c); then sdk_sys_step_half,
 *                  sdk_sys_step with the pair sums read instead of computed.
 *   sdk_sys_run    mean-field models: one cooperative launch for many steps;
 *                  each block owns a fixed run of groups; as many of their
 *                  chunks as fit stay in shared memory for the whole launch
 *                  (all of them up to a few 2^22 particles on an H100), the
 *                  others stream through device memory; a grid barrier
 *                  separates the steps, after which every block forms the sums
 *                  of its systems itself (no second barrier).
 *
 * Noise follows the system stream of rng/philox.h (domain 3): one
 * Philox4x32-10 block per quad and step gives its four particles their
 * values, through the scheme's noise source (noise.h; Gaussian: the
 * Box-Muller pairs (o0,o1) -> lanes 0,1 and (o2,o3) -> lanes 2,3).  The
 * Philox chains of a thread's quads run in lockstep (one key schedule:
 * sdk_philox_blocks of rng/philox.h, which the kernel only calls).
 * Per-particle parameters come from Philox domain 2 (recomputed every step
 * rather than stored: no extra memory traffic).
 *
 * Files: sys_cuda_common.c (the parts both kinds share), sys_cuda_mf.c
 * (mean-field models: sdk_sys_group, sdk_sys_step, sdk_sys_run),
 * sys_cuda_pairs.c (pair models: sdk_sys_step), this file (the module's
 * head and the helpers every system module holds). */
#include "codegen/sys_cuda.h"
#include "codegen/drivers.h"

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

/* a tuning knob in lo..hi (core/tuning.h), else the default */
static int knob(int v, int lo, int hi, int dflt) {
  return v >= lo && v <= hi ? v : dflt;
}

void sdk_cg_sys_cuda(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  const sdk_tuning none = {0}, *tu = o->tuning ? o->tuning : &none;
  int npair = m->npair;
  sdk_cg_red red;
  if (sdk_cg_red_build(&red, o) != 0) {
    em->b->oom = 1;
    return;
  }
  int nred = red.n;
  /* quads per thread and chunk (mean-field): several loads in flight per
   * thread for big systems; tuning: sys_qi (1..4) */
  int64_t N = o->particles;
  int qi = knob(tu->sys_qi, 1, 4, N >= (int64_t)1 << 20 && o->single ? 4 : 1);
  int ch = npair > 0 ? SDK_CUDA_SYS_TPB : 1024 * qi;
  /* blocks per multiprocessor to keep resident (registers): measured on the
   * H100 (docs/BENCHMARKS.md); tuning: sys_minb (1..8) */
  int minb = knob(tu->sys_minb, 1, 8, npair > 0 ? 4 : qi >= 2 || !o->single ? 3 : 4);
  /* the persistent kernel holds more live values (its loops over steps and
   * groups): 2 blocks of 256 threads, up to 128 registers (no spills; faster
   * than 3 blocks of 85 on the H100 at 2^20..2^24 particles: docs/BENCHMARKS.md);
   * tuning: run_minb (1..8) */
  int minb_run = knob(tu->run_minb, 1, 8, 2);
  sdk_em_puts(em, "\n/* ---- systems of interacting particles ---- */\n");
  sdk_em_line(em, "#define SDK_MINB %d", minb);
  sdk_em_line(em, "#define SDK_MINB_RUN %d", minb_run);
  sdk_em_line(em, "#define SDK_STPB %d", SDK_CUDA_SYS_TPB);
  sdk_em_line(em, "#define SDK_QI %d", qi);
  sdk_em_line(em, "#define SDK_CH %d", ch);
  sdk_em_line(em, "#define SDK_NRED %d", nred > 0 ? nred : 1);
  /* what the backend needs to launch the kernels (abi.h, SDK_SYS_INFO_*) */
  int info[SDK_SYS_INFO_N] = {
      [SDK_SYS_INFO_NRED] = nred,      [SDK_SYS_INFO_NPAIR] = npair,
      [SDK_SYS_INFO_OCOS] = red.ocos,  [SDK_SYS_INFO_OSIN] = red.osin,
      [SDK_SYS_INFO_CHUNK] = ch,       [SDK_SYS_INFO_TPB] = SDK_CUDA_SYS_TPB,
      [SDK_SYS_INFO_NMEAN] = m->nmean, [SDK_SYS_INFO_PERSIST] = npair == 0,
  };
  sdk_em_start(em, "extern \"C\" __device__ const int sdk_sys_info[%d] = {", SDK_SYS_INFO_N);
  for (int k = 0; k < SDK_SYS_INFO_N; k++)
    sdk_em_printf(em, "%s%d", k ? ", " : "", info[k]);
  sdk_em_puts(em, "};\n");
  sdk_noise_defs(em, sdk_cg_noise(o), 1);
  sdk_em_puts(em, SYS_HELPERS);
  sdk_em_line(em, "#define SDK_SINGLE %d", o->single);
  sdk_em_puts(em, SYS_VEC);
  if (npair > 0)
    sdk_cg_sys_pairs(em, o, &red);
  else
    sdk_cg_sys_meanfield(em, o, &red);
  sdk_cg_red_free(&red);
}
