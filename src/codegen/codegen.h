/* sdekit: model + scheme (+ observables) -> kernel source.
 *
 * The generator is layered; each layer calls only the ones below it:
 *
 *   codegen.c            the entry point: checks the scheme's capabilities
 *                        against the model, then prelude + one driver
 *   cpu_paths.c          drivers: independent paths on the CPU (OpenMP) and
 *   cuda_paths.c           on the GPU (one thread per path), systems of
 *   sys_cpu.c, sys_cuda*.c interacting particles on either (sys.h: their
 *                          shared pieces; common.h: the prelude, parameters
 *                          and initial conditions every driver uses)
 *   scheme.h, srk.c,     the step: a scheme is data (capabilities, an SRK
 *   scheme_*.c             table) and an emitter of one step over locals
 *   noise.h, noise_*.c   the noise sources: Philox blocks -> noise values
 *   expr_emit.h          model expressions in the source: names, the time
 *                          rule (time_rule.c), hoisting, #line
 *   emit.h               the emitter: lines, blocks, names, literals
 *   abi.h                the numbers the backends share with the kernels
 *
 * One generator serves both backends.  The per-path step is emitted once as
 * straight-line code over scalar locals (sdk_x<v> state, sdk_z<j> Gaussians,
 * sdk_t0 time, sdk_dt, sdk_sqdt) with the model's parameters declared as
 * typed constants (or per-path values when scanned); only the driver around
 * it (an OpenMP loop over blocks of paths, or a CUDA kernel with one thread
 * per path) differs.  The Philox header is embedded as text, so the source
 * is self-contained for the C compiler and NVRTC alike.
 *
 * Kernel ABI (both backends; state is structure-of-arrays, path fastest):
 *   st[v * npad + p]   state of variable v of local path p (npad padded)
 *   sv[g * nsv + j]    per-grid-point values: scanned parameters, then dt if
 *                      dt differs between grid points
 *   global path index  = path0 + p;  grid point g = (path0 + p) / ppg
 *                        (clamped to ngrid - 1 for padding paths)
 *   Gaussian k of a path's step n, noise j:  k = n * nnoise + j  (see rng/philox.h)
 *   st[(nvars + v) * npad + p]  with compensation: the carried error c_v
 *   the module says how many rows it uses: sdk_state_rows (nvars or 2 nvars)
 *
 * State rows (sdk_cg_rows: the one place of this arithmetic; the drivers,
 * the backends (through sdk_state_rows) and the observables use it):
 *   [0, nvars)                the variables
 *   [nvars, nvars + ncomp)    the compensated update's carried rows: ncomp =
 *                             nvars (Kahan) or 2 nvars (CUDA deferred: the
 *                             errors, then the high parts), 0 without
 *   bound, bound + 1, + 2     with [boundaries] (boundary.c): the status
 *                             (0 alive, b + 1 absorbed at boundary b) and the
 *                             hitting step m as m mod 2^20 and m >> 20: integers
 *                             below 2^24, exact in single precision (steps
 *                             below 2^44 in all)
 *   then further per-path rows (time averages), in that order.
 * A module with more rows than the variables exports sdk_state_rows = total.
 *
 * Compensated state update (opts.compensate; single precision by default,
 * --no-compensation turns it off).  x += incr in float rounds to ulp(x)/2
 * every step; once |x| >> |incr| (a drifting phase, Brownian motion with
 * drift run long) those roundings are a bias of the order of 2^-24 |x| per
 * step: mu = 0.3 run to t = 1e4 gave <x>/t = 0.2961 instead of 0.3 (issue 10).
 * The final update of each step is a Kahan sum (Fast2Sum, Dekker 1971):
 *   y = c + incr                  (the step's increment and the carried error)
 *   s = fl(x + y)
 *   c = y - fl(s - x)             (exact rounding error of x + y when |x| >= |y|)
 *   x = s
 * so x + c is the exact sum of the increments to within ulp(c): the state x
 * seen by the drift is the correctly rounded running sum, and the error no
 * longer grows with the number of steps.  When |y| > |x| (x near 0) s - x
 * may round, but then the error is of the order of ulp(y), no worse than
 * the plain update.  Cost: 3 adds per variable and step (the increment's
 * FMA chain starts from c instead of x; then one add for s and two for c)
 * and one more float per variable of state memory, loaded and stored once
 * per launch.  Only the stage inputs of multi-stage schemes are left plain:
 * they are rounded once, not accumulated.
 * Reassociation would cancel it: fl(x + y) - x is y to a compiler allowed to
 * reassociate (-ffast-math on the CPU, the default there), which makes c = 0.
 * On the CPU the three values pass through SDK_OPQ, an XOR of their bits
 * with a zero read from a volatile, which no optimiser can see through (one
 * vector XOR each).  NVRTC's --use_fast_math does not reassociate (it means
 * --ftz --prec-div=false --prec-sqrt=false --fmad=true), so SDK_OPQ is the
 * identity there; FMA contraction may fuse a product of the increment into
 * s or c, which leaves c the exact (or better) error of the rounded sum.
 * test_numerics proves it on both backends with the default flags.
 *
 * The CUDA kernel defers the renormalisation (opts.comp_defer, at the ends of its groups
 * of G unrolled steps aligned to step numbers n with n % G == 0): the state
 * is an unevaluated sum h + l, h fixed within a group, and
 *   every step:       l = l + incr;  x = fl(h + l)        (x: what the drift sees)
 *   when n % G == 0:  l = l - fl(x - h);  h = x            (Fast2Sum of h + l)
 * which is the Kahan sum above for G = 1 and costs 1 + 2/G adds per variable
 * and step instead of 3 (issue 10: PROG1 at >= 90% of the plain update).
 * The rounding errors of l are of the order of ulp(G incr), as small as the
 * Kahan sum's.  x, l and h are all stored (3 nvars rows), so a launch that
 * ends inside a group continues it exactly: the bits depend on the step
 * numbers only, never on where launches, samples or checkpoints fall.  Double
 * precision is not compensated (its source and results are unchanged), nor
 * are systems of interacting particles (sys_*.c, their own update).
 */
#ifndef SDK_CODEGEN_H
#define SDK_CODEGEN_H

#include "codegen/abi.h"
#include "codegen/opts.h"
#include "core/error.h"

/* Where the blocks of per-path state rows begin (see above); -1 where a
 * block is absent. */
typedef struct sdk_cg_row_layout {
  int nvars;
  int comp;  /* first carried row of the compensated update, -1 without */
  int ncomp; /* 0, nvars or 2 nvars */
  int bound; /* first boundary row (status, step mod 2^20, step >> 20), -1 without */
  int total; /* rows of the state */
} sdk_cg_row_layout;
#define SDK_CG_BOUND_ROWS 3
void sdk_cg_rows(const sdk_codegen_opts *o, sdk_cg_row_layout *l);

/* Generate the full kernel source; *out is malloc'd.  Refuses (SDK_ERR_USAGE)
 * a model the scheme cannot integrate (its capabilities, codegen/scheme.h). */
sdk_err sdk_codegen(const sdk_codegen_opts *o, char **out, sdk_errbuf *eb);

#endif
