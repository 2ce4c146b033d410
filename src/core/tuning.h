/* sdekit: tuning knobs of the GPU kernels, for experiments and benchmarks.
 *
 * They never change a result (every choice gives the same bits: tested), only
 * speed; the defaults are what docs/BENCHMARKS.md measured best.  The library
 * never reads the environment: the CLI fills this from the SDK_* variables
 * (src/cli/env.c) and passes it down through the run configuration, the code
 * generator and the backend.  0 or NULL everywhere means "choose".
 */
#ifndef SDK_TUNING_H
#define SDK_TUNING_H

/* all-pairs kernels: every ordered pair (the paper's PROG2), or each unordered
 * pair once when the pair functions are odd or even (codegen/pair_sym.c) */
enum { SDK_PAIRS_AUTO = 0, SDK_PAIRS_FULL = 1, SDK_PAIRS_HALF = 2 };

typedef struct sdk_tuning {
  /* systems of interacting particles on the GPU (backend/cuda_sys.c) */
  const char *sys_kernel; /* SDEKIT_SYS_KERNEL: launch | persist | resident | auto (NULL) */
  int sys_cpb;            /* SDEKIT_SYS_CPB: chunks per group */
  int sys_bps;            /* SDEKIT_SYS_BPS: blocks per multiprocessor of the persistent kernel */
  int sys_rmax;           /* SDEKIT_SYS_RMAX: most chunks a block keeps on chip */
  int sys_pairs; /* SDEKIT_SYS_PAIRS: pair models' pair sums: SDK_PAIRS_AUTO, _FULL or _HALF */
  /* the generated system kernels (codegen/sys_cuda.c) */
  int sys_qi;   /* SDEKIT_SYS_QI: quads per thread and chunk, 1..4 */
  int sys_minb; /* SDEKIT_SYS_MINB: blocks per multiprocessor (launch bounds), 1..8 */
  int run_minb; /* SDEKIT_RUN_MINB: the same for the persistent kernel, 1..8 */
  /* sdekit bench: write the PROG2 baseline's cubin here (SASS comparisons) */
  const char *baseline_cubin; /* SDEKIT_BASELINE_CUBIN */
} sdk_tuning;

#endif
