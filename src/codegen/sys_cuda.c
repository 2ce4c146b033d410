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
 * Files: the kernels are kernel files (kernels/, each explains its own):
 * sys_sums.cuh (the block's and the system's sums, the grid barrier),
 * sys_ld4.cuh (vector accesses), sys_group.cuh and sys_chunk.cuh (the
 * mean-field group function), sys_step.cuh (sdk_sys_step, sdk_sys_step_half,
 * sdk_sys_sums), sys_run.cuh (sdk_sys_run), sys_half.cuh (sdk_sys_half,
 * sdk_sys_edge); the generator writes the model's code at their hooks
 * (emit.h, sdk_em_kernel_hooks): sys_cuda_mf.c (mean-field models),
 * sys_cuda_pairs.c (pair models), sys_cuda_common.c (both), this file (the
 * module's head). */
#include "codegen/sys_cuda.h"
#include "codegen/drivers.h"

/* the fixed kernel text of every system module (kernels/) */
extern const char sdk_embedded_sys_sums_cuh[], sdk_embedded_sys_ld4_cuh[];

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
  /* the kernel files' choices (kernels/sys_step.cuh, sys_run.cuh): a pair
   * model; the order parameter's sums (-1: none) */
  sdk_em_line(em, "#define SDK_PAIRS %d", npair > 0);
  sdk_em_line(em, "#define SDK_OCOS %d", red.ocos);
  sdk_em_line(em, "#define SDK_OSIN %d", red.osin);
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
  sdk_em_kernel(em, sdk_embedded_sys_sums_cuh);
  sdk_em_line(em, "#define SDK_SINGLE %d", o->single);
  sdk_em_kernel(em, sdk_embedded_sys_ld4_cuh);
  if (npair > 0)
    sdk_cg_sys_pairs(em, o, &red);
  else
    sdk_cg_sys_meanfield(em, o, &red);
  sdk_cg_red_free(&red);
}
