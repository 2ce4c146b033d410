/* sdekit: --observe acf accumulated by the kernel (codegen/acf.c).
 *
 * With opts.acf_k = K > 0 every path keeps, per sampled quantity (a
 * variable or a user observable), the last K - 1 samples and the sums
 * S_s = sum_t x_t x_{t-s} (s < K) and sum_t x_t over the samples after the
 * transient, in double precision (kernels/acf_add.h), in registers (CUDA) or
 * the block's arrays (CPU) through a launch and in rows of the state between
 * launches: the first rows of the host's block (codegen.h, opts.host_rows),
 * which sdk_init zeroes, so checkpoints, shards and ranks carry them like any
 * other.  observe/obs_acf.c reads them at the end.
 *
 * The rows of quantity j, from the host's first row (sdk_cg_acf_row):
 *   ring [K - 1]             x_{t-1} .. x_{t-K+1} (zero before the first sample)
 *   sums [(K + 1) P]         the double sums: P = 3 floats (single, their sum
 *                            exact) or P = 1 (double); sum s < K is lag s,
 *                            sum K the sum of x
 *
 * The sample clock: the state after step n is sample (n + 1 - first) / every
 * when n + 1 >= first and every divides n + 1 - first (opts.acf_first,
 * acf_every), as the host's sampling would take it; with first = 0 the
 * initial state is sample 0, taken before the first step. */
#ifndef SDK_CODEGEN_ACF_H
#define SDK_CODEGEN_ACF_H

#include "codegen/emit.h"
#include "codegen/opts.h"

/* rows of one quantity */
static inline int sdk_cg_acf_qrows(int K, int single) {
  return K - 1 + (single ? 3 : 1) * (K + 1);
}
/* row of quantity j (from the host's first row): what 0 ring slot s, 1 sum s
 * (its part h < 3 in single precision) */
static inline int sdk_cg_acf_row(int K, int single, int j, int what, int s, int h) {
  int r = j * sdk_cg_acf_qrows(K, single);
  if (what == 0) return r + s;
  return r + K - 1 + (single ? 3 * s + h : s);
}

/* The prelude's part (common.c): the clock's constants, the kernel file. */
void sdk_cg_acf_defs(sdk_emit *em, const sdk_codegen_opts *o);
/* CPU (cpu_paths.c): the block's arrays declared and loaded (out = 0) or
 * stored; the update after step n of path i of the block, in the step's
 * vector loop (the variables sdk_x%d and the parameters in scope). */
void sdk_cg_acf_cpu_io(sdk_emit *em, const sdk_codegen_opts *o, int out);
void sdk_cg_acf_cpu_step(sdk_emit *em, const sdk_codegen_opts *o);
/* CPU: before step n of path i, its state sdk_x%d: without a transient the
 * first sample, the initial state, at n = 0 (no step makes it). */
void sdk_cg_acf_cpu_first(sdk_emit *em, const sdk_codegen_opts *o);
/* CUDA (cuda_paths.c): the path's registers and the sample clock declared
 * and loaded (out = 0), or stored; the update after step `step` (an sdk_i64
 * expression), the state's variables x0_%d; with a user observable among
 * the quantities, `call` writes the call of the device function that
 * computes their values (sdk_cg_acf_values) into sdk_aq%d at step n_after. */
typedef struct {
  void (*fn)(sdk_emit *em, const void *ctx, const char *n_after);
  const void *ctx;
} sdk_cg_acf_call;
void sdk_cg_acf_cuda_io(sdk_emit *em, const sdk_codegen_opts *o, int out,
                        const sdk_cg_acf_call *call);
void sdk_cg_acf_cuda_step(sdk_emit *em, const sdk_codegen_opts *o, const char *step,
                          const sdk_cg_acf_call *call);
/* Whether a quantity is a user observable (then CUDA's values need the call). */
int sdk_cg_acf_user(const sdk_codegen_opts *o);
/* The quantities' values at the state after a step into DST_FMT (printf
 * format of j, declared by the caller): x_fmt names variable v, n_after the
 * state's step index; the parameters and sdk_dt in scope. */
void sdk_cg_acf_values(sdk_emit *em, const sdk_codegen_opts *o, const char *x_fmt,
                       const char *n_after, const char *dst_fmt);

#endif
