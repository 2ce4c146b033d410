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
 * test_numerics proves it on both backends with the default flags.  Where
 * the C compiler can switch reassociation off for one block (clang >= 13),
 * the Fast2Sum is written in such a block instead, without the XORs
 * (SDK_F2S_*, kernels/opaque.h; the same bits).
 * Which variables (issue 32, comp_vars.c): by default (--compensate auto)
 * every variable but those whose drift c x + g pulls them back within 128
 * steps (c dt <= -1/128, c the same on every path, additive noise) and
 * whose own Gaussian noise increments span at least 256 float spacings at
 * the largest |x| their drift, noise and start allow, which are updated
 * plainly (x += incr) but keep their carried rows (0), so the rows do not
 * depend on the choice; --compensate all: every variable; --verbose names
 * them.
 *
 * The CUDA kernel defers the renormalisation (opts.comp_defer, every R steps,
 * at step numbers n with n % R == 0; R = 4 G, the unrolled loop's 4 groups
 * of G steps, or G with delays or Levy pairs: cuda_paths.c): the state is
 * an unevaluated sum h + l, h fixed between renormalisations, and
 *   every step:       l = l + incr;  x = fl(h + l)        (x: what the drift sees)
 *   when n % R == 0:  l = l - fl(x - h);  h = x            (Fast2Sum of h + l)
 * which is the Kahan sum above for R = 1 and costs 1 + 2/R adds per variable
 * and step instead of 3 (issue 10: PROG1 at >= 90% of the plain update;
 * issue 32: R = 16 instead of 4 for PROG1, 39.19 instructions a step
 * instead of 39.56).  A product K x in the drift or in a noise amplitude
 * (the Heun stage's and Milstein's factor included: srk.c) is evaluated as
 * fma(K, l_i, fl(K h)), l_i the stage's low part (expr_emit.h,
 * sdk_cg_expr_split): fl(K h) is computed once per R steps, and x = fl(h +
 * l), which nothing else reads then, not at all between renormalisations
 * (PROG1's cos(2 pi x): 38.19 instructions a step, the plain update 37.88;
 * the published linear SDE's a u dt + b u dW: 68.69 -> 66.25).  The rounding errors of l are of the
 * order of ulp(R incr), far below ulp(x) while |x| >> R |incr|, and no larger than the plain
 * update's where it is not.  x, l and h are all stored (3 nvars rows), so a launch that ends inside
 * a group continues it exactly: the bits depend on the step numbers only, never on where launches,
 * samples or checkpoints fall.  Double precision is not compensated (its source and results are
 * unchanged), nor are systems of interacting particles (sys_*.c, their own update).
 */
#ifndef SDK_CODEGEN_H
#define SDK_CODEGEN_H

#include "codegen/abi.h"
#include "codegen/opts.h"
#include "core/error.h"

/* The rows of a path's state, st[row * npad + p], in one place (drivers,
 * backends through sdk_state_rows, observables through the carried rows):
 *
 *   [0, nvars)               the variables
 *   [comp, comp + ncomp)     the compensated update's carried rows (above):
 *                            0, nvars (Kahan sum) or 2 nvars (deferred: the
 *                            carried errors, then the high parts)
 *   [bound, bound + 3)       first-passage rows, only with [boundaries]
 *                            (boundary.c): status (0 alive, b + 1 absorbed
 *                            at boundary b), hitting step mod 2^20, hitting
 *                            step >> 20 (integers below 2^24: exact as floats)
 *   [host, host + nhost)     rows the host keeps per path between samples
 *                            (opts.host_rows: acf, psd), only when asked for
 *   [evt, evt + nevt)        with [events] after the time averages (below):
 *                            their records (resets.c)
 *   [tavg, tavg + 2 ntavg)   time-average accumulators (opts.tavg), present
 *                            only when time averages are asked for: for
 *                            quantity j (j < nobs: user observable j, then
 *                            nobs + v: variable v) row tavg + 2 j is the
 *                            running sum S_j and row tavg + 2 j + 1 its
 *                            carried error E_j
 *   [dtc, ...)               --dt-check only (opts.dt_check): the coarse
 *                            path (below): its variables, its carried errors
 *                            (nvars rows, with compensation), the held noise
 *                            of the first fine step of a pair (nnoise rows),
 *                            the coarse - fine difference of each variable at
 *                            step dtc_mark (nvars rows: the drift's origin),
 *                            its time-average accumulators (2 ntavg rows),
 *                            with [boundaries] its own boundary rows (3, as
 *                            the fine path's; the hitting step counted in
 *                            fine steps: boundary.c)
 *   total                    rows allocated (sdk_state_rows when > nvars)
 *
 * The backends expose rows nvars.. as carried rows (backend.h): the
 * accumulators are carried rows (obs_tavg.c finds them by this layout), and
 * checkpoints store them with the others.
 *
 * Time averages.  Quadrature: the right-point rule over the steps of the
 * window [T0, T] = [transient_steps dt, nsteps dt]: for every step n with
 * tavg_from = transient_steps <= n < nsteps, the value f(X_{n+1}, t_{n+1})
 * at the state after the step is added, so the time average of a path is
 *   (1/N) sum_{m = T0/dt + 1}^{T/dt} f(X_m, t_m),   N = nsteps - transient_steps,
 * i.e. (1/(T - T0)) sum f dt.  For a variable v = dx/dt this is the
 * velocity whose integral is x(T) - x(T0) (the drift): they agree within
 * statistics (the sum of v dt is not the displacement of the noise).
 * Exactness: the pair (S, E) is an unevaluated sum updated by Knuth's
 * TwoSum, whose error term is exact whatever the magnitudes:
 *   s = fl(S + f);  b = fl(s - S);  E += (S - fl(s - b)) + (f - b);  S = s
 * (through SDK_OPQ on the CPU, as the compensated update), so S + E is the
 * exact sum to within the rounding of E (ulp(E), E ~ ulp(S)): a constant 1
 * sums to exactly N in single precision far beyond 2^24 steps.  Both
 * precisions keep the pair; the host reads S + E in double. */
/* The coupled coarse path (--dt-check, opts.dt_check).  Every path also
 * carries a copy integrated at 2 dt: coarse step m covers the fine steps
 * n = 2m and 2m + 1 and is taken right after fine step 2m + 1, at the time
 * t_{2m} = 2m dt of its start, with the noise values
 *   zc_j = (z_j(2m) + z_j(2m + 1)) / sqrt(2)
 * (so its increment sqrt(2 dt) zc_j is the sum of the two fine increments:
 * the same Brownian path, no other random numbers), by the scheme's own
 * step emitter run a second time over the coarse locals with sdk_dt = 2 dt
 * (no hoisting; a Kahan sum every coarse step where compensated, also on
 * CUDA).  z_j(2m) waits in a row between the two fine steps, so a launch,
 * sample or checkpoint may end after any step.  Where the fine path is at
 * an even step the coarse one is at the same time: the plan asks the
 * samples, the transient and the end to be even numbers of steps.  For any
 * noise source whose values have the moments of a standard Gaussian up to
 * the fifth (three-point values: symmetric, E z^2 = 1, E z^4 = 3), zc_j has
 * them too (symmetric; E zc^2 = 1, E zc^4 = (2 * 3 + 6) / 4 = 3), which is
 * all a weak order 2 scheme needs (noise_threepoint.c). */
/* Delayed values (delay.c): the ring buffers of the delayed variables'
 * past states, [dly, dly + ndly), follow the host's rows (before the time
 * averages).  A CUDA module may keep them as quads of slots
 * (delay_cuda.c, sdk_cg_delay_quads; abi.h, sdk_quad_at): the backend's
 * rows are the canonical ones all the same. */
/* Where the blocks of per-path state rows begin (above); -1 where a block
 * is absent. */
typedef struct sdk_cg_row_layout {
  int nvars;
  int comp;  /* first carried row of the compensated update, -1 without */
  int ncomp; /* 0, nvars or 2 nvars */
  int bound; /* first boundary row (status, step mod 2^20, step >> 20), -1 without */
  int host;  /* first of the rows the host keeps (opts.host_rows) */
  int nhost; /* their number: 0 without */
  int tavg;  /* first time-average row (2 ntavg of them) */
  int ntavg; /* time-averaged quantities: 0 without */
  int evt;   /* [events]: first row of their records (resets.h), -1 without */
  int nevt;  /* their rows: SDK_CG_RESET_ROWS per event */
  /* --dt-check (opts.dt_check), the coupled coarse path, -1 without: */
  int dtc;       /* its variables (nvars rows) */
  int dtc_comp;  /* its carried errors (nvars rows; -1 without compensation) */
  int dtc_z;     /* the first fine step's noise of the pending pair (nnoise rows) */
  int dtc_d0;    /* coarse - fine of each variable at step dtc_mark (nvars rows) */
  int dtc_tavg;  /* its time-average accumulators (2 ntavg rows; -1 without tavg) */
  int dtc_bound; /* its boundary rows as bound's (3 rows; -1 without [boundaries]) */
  /* the per-path values of the [particle] parameters of independent paths
   * (sdk_cg_ppar_row): drawn once by sdk_init, read-only afterwards (the
   * drivers load them with the state and never store them), -1 without */
  int ppar;
  int nppar;
  int adapt; /* --adaptive: the step controller's rows (adaptive.h), -1 without */
  int dly;   /* delayed values: the ring buffers of the past states (delay.c), -1 without */
  int ndly;  /* their rows */
  int total; /* rows of the state */
} sdk_cg_row_layout;
#define SDK_CG_BOUND_ROWS 3
/* --adaptive (adaptive.c): the level of the next try less the first try's,
 * the accepted and the rejected sub-steps (each as its count mod 2^20 and
 * its count >> 20: exact in single precision), the deepest level accepted
 * (the smallest step dt 2^-l); all 0 at the start */
#define SDK_CG_ADAPT_ROWS 6
/* ... and with [boundaries] one more, row SDK_CG_ADAPT_HIT of the block: how
 * long before the end of its hitting step n (boundary.c's hitting step n + 1)
 * the path was absorbed (adaptive.c), in units of dt 2^-SDK_BTREE_DEPTH (below
 * 2^24: to within one unit in single precision); 0 when alive */
#define SDK_CG_ADAPT_HIT 6
void sdk_cg_rows(const sdk_codegen_opts *o, sdk_cg_row_layout *l);
/* The blocks of per-path rows above, as the drivers' tables of per-path
 * values name them (cuda_paths.c, cpu_paths.c); HIGH: the high parts of
 * the deferred compensation, the second half of [comp, comp + ncomp). */
enum {
  SDK_CG_B_VARS,
  SDK_CG_B_COMP,
  SDK_CG_B_HIGH,
  SDK_CG_B_TAVG,
  SDK_CG_B_BOUND,
  SDK_CG_B_DTC,
  SDK_CG_B_DTC_COMP,
  SDK_CG_B_DTC_Z,
  SDK_CG_B_DTC_D0,
  SDK_CG_B_DTC_TAVG,
  SDK_CG_B_DTC_BOUND,
  SDK_CG_B_PPAR,
  SDK_CG_B_ADAPT,
  SDK_CG_B_EVENTS
};
/* The first row of block b (SDK_CG_B_*) and *n, its number of values (of
 * rows, but 2 ntavg rows hold ntavg pairs); *n = 0 where it is absent. */
int sdk_cg_block(const sdk_cg_row_layout *l, int nnoise, int b, int *n);

/* Per-path parameters of independent paths (the block [ppar, ppar +
 * nppar) above, at the end of the state so that no other row moves).
 * [particle] parameters of a model without [meanfield] or [pair] (systems
 * of particles keep theirs in the system driver): each path is one
 * particle, whose parameters are drawn once by sdk_init as the system
 * driver draws them (sys.h: Philox domain 2, block k for parameter k, lane
 * 0, keyed by the global particle index, here the path's global index), so
 * a path's values are those of the particle of the same index in a run of
 * systems of one particle.  Those that are the same for every path
 * (sdk_cg_part_const) stay constants of the source.  Values given as data
 * (opts path_param, path_part) are written by the host after sdk_init
 * (sim/pathparams.c), for [particle] parameters in place of the draw.
 * The rows: the [particle] parameters with values per path in the order of
 * [particle], then the parameters given per path in the order of [params].
 * The row within the block of [particle] parameter k (part = 1) or
 * parameter k (part = 0), or -1 where it has none. */
int sdk_cg_ppar_row(const sdk_codegen_opts *o, int part, int k);

/* The values sdk_observe evaluates per path (SDK_NOBS): the model's user
 * observables, then with --dt-check (opts.dt_check) the coupled differences
 * coarse - fine (codegen.h) of each user observable [nobs, 2 nobs), each
 * variable [2 nobs, 2 nobs + nvars) and each variable's displacement since
 * step dtc_mark [2 nobs + nvars, 2 nobs + 2 nvars); 0 for systems. */
int sdk_cg_nobs_eval(const sdk_codegen_opts *o);

/* Generate the full kernel source; *out is malloc'd.  Refuses (SDK_ERR_USAGE)
 * a model the scheme cannot integrate (its capabilities, codegen/scheme.h). */
sdk_err sdk_codegen(const sdk_codegen_opts *o, char **out, sdk_errbuf *eb);

#endif
