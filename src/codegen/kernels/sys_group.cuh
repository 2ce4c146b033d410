#line 2 "kernels/sys_group.cuh"
/* The group function of mean-field models (codegen/sys_cuda.c has the work
 * and reduction contract): one step of one group (s, c), particles
 * c * gsz .. + glen - 1 of system s, whose variable v lives at
 * xg[v * npad + i] (device memory) or, for the chunks resident in shared
 * memory, in xs: chunk j0 + cc of the block's is in slot slot_of[j0 + cc]
 * (-1: not resident; no table: none is), variable v at
 * xs[v * vss + slot * SDK_CH + i].  tot: the system's sums of step n.  The
 * group's sums go to part_g through sred's half `half` (sys_sums.cuh).
 * Called by sdk_sys_step (sys_step.cuh) and sdk_sys_run (sys_run.cuh).
 *
 * Holes: real, sdk_i64, sdk_u64, SDK_NRED, SDK_CH.  Hooks
 * (codegen/sys_cuda_mf.c): params (the parameters, the times of steps n
 * and n + 1), coupling (the mean fields from tot), chunk_whole and
 * chunk_part (a chunk of SDK_CH particles, whole or the group's last,
 * partial one, x at xb: x_n -> x_{n+1} and the thread's terms of the sums
 * in sdk_acc). */
static __device__ __forceinline__ void
sdk_sys_group(real *sdk_xg, sdk_i64 sdk_npad, real *sdk_xs, sdk_i64 sdk_vss, int sdk_j0,
              const short *sdk_slot_of, int sdk_glen, sdk_i64 sdk_s, sdk_i64 sdk_c, sdk_i64 sdk_N,
              sdk_i64 sdk_spg, int sdk_gsz, const real *__restrict__ sdk_sv, sdk_i64 sdk_n,
              sdk_u64 sdk_seed, int sdk_mode, const double *sdk_tot, double *sdk_part_g,
              double (*sdk_sred)[SDK_NRED], int sdk_half) {
  const int sdk_tid = threadIdx.x;
  const sdk_i64 sdk_g = sdk_s / sdk_spg;
  (void)sdk_sv;
  (void)sdk_g;
  (void)sdk_tot;
  (void)sdk_seed;
  SDK_HOOK(params, sdk_n);
  const double sdk_invN = 1.0 / (double)sdk_N;
  (void)sdk_invN;
  SDK_HOOK(coupling, sdk_mode);
  real sdk_acc[SDK_NRED];
#pragma unroll
  for (int sdk_k = 0; sdk_k < SDK_NRED; sdk_k++)
    sdk_acc[sdk_k] = (real)0;
  const sdk_i64 sdk_gi0 = sdk_c * (sdk_i64)sdk_gsz; /* the group's first particle */
  /* quad index (stream domain 3) of the group's first particle */
  const sdk_u64 sdk_q0 = (sdk_u64)sdk_s * (sdk_u64)((sdk_N + 3) >> 2) + (sdk_u64)(sdk_gi0 >> 2);
  (void)sdk_q0;
  for (int sdk_cc = 0; sdk_cc * SDK_CH < sdk_glen; sdk_cc++) {
    const int sdk_i0 = sdk_cc * SDK_CH + 4 * sdk_tid; /* my quad 0 of this chunk */
    const int sdk_slot = sdk_slot_of ? sdk_slot_of[sdk_j0 + sdk_cc] : -1;
    /* (the two sides are written out: each its own code, with its own
     * offsets; as one they would cost registers) */
    if (sdk_slot >= 0) {
      real *const sdk_xb = sdk_xs; /* resident */
      const sdk_i64 sdk_vs = sdk_vss;
      const int sdk_off = (sdk_slot - sdk_cc) * SDK_CH;
      if (sdk_glen - sdk_cc * SDK_CH >= SDK_CH) {
        SDK_HOOK(chunk_whole, sdk_xb, sdk_vs, sdk_off, sdk_i0);
      } else {
        SDK_HOOK(chunk_part, sdk_xb, sdk_vs, sdk_off, sdk_i0);
      }
    } else {
      real *const sdk_xb = sdk_xg; /* in device memory */
      const sdk_i64 sdk_vs = sdk_npad;
      const int sdk_off = 0;
      if (sdk_glen - sdk_cc * SDK_CH >= SDK_CH) {
        SDK_HOOK(chunk_whole, sdk_xb, sdk_vs, sdk_off, sdk_i0);
      } else {
        SDK_HOOK(chunk_part, sdk_xb, sdk_vs, sdk_off, sdk_i0);
      }
    }
  }
  sdk_sys_block_sum(sdk_acc, sdk_sred, sdk_part_g, sdk_half);
}
